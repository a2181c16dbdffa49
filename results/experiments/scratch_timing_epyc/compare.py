"""Compare the three curricula retrained from scratch with the committed ones, stage by stage, bit for bit.

    python results/experiments/scratch_timing_epyc/compare.py NEW_PARENT [--out compare.json]

For every `<species>_curriculum_cpu_seed0/<species>_stage<N>` in NEW_PARENT and results/: the policy's arrays (params
and observation normalizer) from each checkpoint.msgpack, every metrics.csv column both hold but the clock's, and
every gate decision's metrics and stress-test metrics (matched by its env steps).
"""
import argparse
import csv
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", ".."))
from runs import atomic_write, read_checkpoint  # noqa: E402

SPECIES = ("trex", "velociraptor", "brachiosaurus")
CLOCK = ("wall_s", "steps_per_s")


def policy_differences(a_path, b_path):
    a, b = read_checkpoint(a_path)["policy"], read_checkpoint(b_path)["policy"]
    names = sorted(set(a) | set(b))
    return len(names), [n for n in names if n not in a or n not in b or not np.array_equal(a[n], b[n])]


def metrics_differences(a_path, b_path):
    with open(a_path) as f:
        a = list(csv.DictReader(f))
    with open(b_path) as f:
        b = list(csv.DictReader(f))
    columns = [c for c in a[0] if c in b[0] and c not in CLOCK]
    differing = sorted({c for x, y in zip(a, b) for c in columns if x[c] != y[c]})
    return dict(rows=[len(a), len(b)], columns_compared=len(columns), differing_columns=differing)


def gate_differences(a_path, b_path):
    with open(a_path) as f:
        a = json.load(f)["decisions"]
    with open(b_path) as f:
        b = json.load(f)["decisions"]
    # a gate that skips its early evaluations (min_env_steps) makes fewer decisions: each is matched by its steps
    old = {x["env_steps"]: (x["metrics"], x.get("stress_metrics")) for x in a}
    same = sum(old.get(y["env_steps"]) == (y["metrics"], y.get("stress_metrics")) for y in b)
    return dict(decisions=[len(a), len(b)], equal=same)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("new_parent")
    parser.add_argument("--against", default="results")
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    report = {}
    for species in SPECIES:
        for n in (1, 2, 3):
            stage = f"{species}_curriculum_cpu_seed0/{species}_stage{n}"
            new, old = os.path.join(args.new_parent, stage), os.path.join(args.against, stage)
            if not os.path.exists(os.path.join(new, "eval.json")):
                continue
            arrays, differing = policy_differences(os.path.join(old, "checkpoint.msgpack"),
                                                   os.path.join(new, "checkpoint.msgpack"))
            row = dict(policy_arrays=arrays, policy_arrays_differing=differing,
                       metrics=metrics_differences(os.path.join(old, "metrics.csv"), os.path.join(new, "metrics.csv")),
                       gate=gate_differences(os.path.join(old, "gate.json"), os.path.join(new, "gate.json")))
            report[stage] = row
            print(f"{stage}: policy arrays differing {len(differing)} of {arrays}; metrics rows "
                  f"{row['metrics']['rows']}, columns differing {row['metrics']['differing_columns'] or 'none'} of "
                  f"{row['metrics']['columns_compared']}; gate decisions equal {row['gate']['equal']} of "
                  f"{row['gate']['decisions']}")
    if args.out:
        atomic_write(args.out, json.dumps(dict(new=args.new_parent, against=args.against, stages=report), indent=1))


if __name__ == "__main__":
    main()
