"""A branch's gate evaluations beside the committed stage's at the same env steps, and its metrics at the end.

    python results/experiments/adaptive_lr_kl0.02/compare_gates.py BRANCH_STAGE_FOLDER COMMITTED_STAGE_FOLDER

Each gate evaluation (32 fresh episodes, mean action) comes from the branch's gate.json, or from its console log
(`BRANCH_STAGE_FOLDER/../../<branch>.log`) for a branch stopped before it wrote one; the committed one's from gate.json.
"""

import ast
import csv
import json
import os
import sys


def branch_gates(stage):
    gate = os.path.join(stage, "gate.json")
    decisions = json.load(open(gate))["decisions"] if os.path.exists(gate) else []
    log = os.path.dirname(os.path.abspath(stage)) + ".log"
    from_log = [ast.literal_eval(line.split("gate: ")[1].split(" ->")[0]) for line in open(log)
                if line.startswith("gate:")]
    return [d["metrics"] for d in decisions] if len(decisions) >= len(from_log) else from_log


def main(branch, committed):
    new = branch_gates(branch)
    old = [d["metrics"] for d in json.load(open(os.path.join(committed, "gate.json")))["decisions"]]
    steps = [d["env_steps"] for d in json.load(open(os.path.join(committed, "gate.json")))["decisions"]]
    print(f"{branch} against {committed}: {', '.join(new[0])}")
    for step, a, b in zip(steps, new, old):
        show = lambda m: " ".join(f"{v:.2f}" for v in m.values())
        print(f"  {step / 1e6:.2f}M  branch {show(a)}   committed {show(b)}")
    for start in (0, len(new) // 2):
        print(f"  from {steps[start] / 1e6:.2f}M to {steps[len(new) - 1] / 1e6:.2f}M:")
        for key in new[0]:
            a, b = [m[key] for m in new[start:]], [m[key] for m in old[start:len(new)]]
            print(f"    {key}: branch {min(a):.2f}-{max(a):.2f} (mean {sum(a) / len(a):.2f}), committed "
                  f"{min(b):.2f}-{max(b):.2f} (mean {sum(b) / len(b):.2f})")
    rows = list(csv.DictReader(open(os.path.join(branch, "metrics.csv"))))
    ref = {int(r["env_steps"]): r for r in csv.DictReader(open(os.path.join(committed, "metrics.csv")))}
    last = rows[-1]
    same = ref[int(last["env_steps"])]
    for key in ("entropy", "approx_kl", "clip_fraction", "learning_rate"):
        if key in last:
            print(f"  {key} at {int(last['env_steps']) / 1e6:.2f}M: branch {float(last[key]):.3g}"
                  + (f", committed {float(same[key]):.3g}" if key in same else ""))


if __name__ == "__main__":
    main(*sys.argv[1:3])
