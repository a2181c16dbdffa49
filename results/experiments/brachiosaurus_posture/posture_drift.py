"""Gate evaluations of stage-1 runs beside the posture reward's raw value (its weighted mean over the 20 updates up to
each evaluation, divided by the weight): python results/experiments/brachiosaurus_posture/posture_drift.py STAGE1 ..."""
import csv
import json
import statistics
import sys

import numpy as np

for stage in sys.argv[1:]:
    config = json.load(open(f"{stage}/config.json"))
    weight = config["reward_weights"]["posture"]
    rows = {int(r["update"]): r for r in csv.DictReader(open(f"{stage}/metrics.csv"))}
    print(f"{stage} (posture weight {weight}, posture_sigma {config['posture_sigma']})")
    pairs = []
    for d in json.load(open(f"{stage}/gate.json"))["decisions"]:
        window = [rows[u] for u in range(d["update"] - 19, d["update"] + 1) if u in rows]
        posture = statistics.mean(float(r["reward/posture"]) for r in window) / weight
        stress = (d.get("stress_metrics") or {}).get("success_rate")
        print(f"  {d['env_steps']:>9,}  own pushes {d['metrics']['success_rate']:.3f}  "
              f"stress {'-' if stress is None else f'{stress:.3f}'}  posture {posture:.3f}")
        if stress is not None:
            pairs.append((stress, posture))
    if len(pairs) > 2:
        stress, posture = np.array(pairs).T
        print(f"  Pearson r (stress, posture) over {len(pairs)} evaluations: {np.corrcoef(stress, posture)[0, 1]:.2f}")
