"""Does a code change leave training unchanged? Trains a short fixed-seed T-Rex stage-1 run through the CLI of a
checkout and compares every per-update metric and the final evaluation with a recorded reference, bit for bit
(the CSV stores floats as Python's repr). Wall times, throughput and the machine record are not compared.

    python benchmarks/same_metrics.py                       # this checkout against the committed reference
    python benchmarks/same_metrics.py --root /tmp/old --record results/same_metrics_trex_stage1.json

The reference was recorded from commit 1bfc6fb (before the trainer was split into ppo_mjx.py, training.py,
curriculum.py and cli.py); the check passes when this checkout trains exactly the same numbers on this CPU. Both
runs compile for the same instruction set: the XLA_FLAGS that training.enable_compilation_cache sets on x86 CPUs
(the recorded commit predates that setting; AVX-512 and AVX2 programs round differently).
"""

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile

ENVIRONMENT = dict(os.environ)  # as the shell gave it: importing jax (training) sets TF_CPP_MIN_LOG_LEVEL=1
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from training import XLA_CPU_FLAGS  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(ROOT, "results", "same_metrics_trex_stage1.json")
# 8 updates of 32 envs x 20 steps; 50-step episodes so that truncations and episode returns occur.
ARGS = ["--env", "trex_stage1", "--seed", "0", "--num-envs", "32", "--total-timesteps", "5120",
        "--set", "num_minibatches=4", "--set", "episode_length=50", "--set", "eval_episodes=4",
        "--set", "log_every=4", "--set", "checkpoint_every=8"]
NOT_COMPARED = {"wall_s", "steps_per_s", "train_wall_s", "machine", "backend", "device"}


def train(root):
    """(metrics rows as strings, eval.json) of the fixed run trained by `root`'s ppo_mjx.py."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "run")
        subprocess.run([sys.executable, os.path.join(root, "ppo_mjx.py"), *ARGS, "--out", out], cwd=root,
                       check=True, env=dict(ENVIRONMENT, XLA_FLAGS=XLA_CPU_FLAGS))
        with open(os.path.join(out, "metrics.csv")) as f:
            rows = [{k: v for k, v in row.items() if k not in NOT_COMPARED} for row in csv.DictReader(f)]
        with open(os.path.join(out, "eval.json")) as f:
            evaluation = {k: v for k, v in json.load(f).items() if k not in NOT_COMPARED}
    return rows, evaluation


def commit(root):
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True,
                          text=True).stdout.strip()


def differences(reference, rows, evaluation):
    """Lines naming every value that differs from the reference."""
    found = []
    if len(rows) != len(reference["rows"]):
        found.append(f"{len(rows)} updates, reference {len(reference['rows'])}")
    for i, (mine, theirs) in enumerate(zip(rows, reference["rows"])):
        for key in sorted(set(mine) | set(theirs)):
            if mine.get(key) != theirs.get(key):
                found.append(f"update {i + 1} {key}: {mine.get(key)} vs reference {theirs.get(key)}")
    for key in sorted(set(evaluation) | set(reference["eval"])):
        if evaluation.get(key) != reference["eval"].get(key):
            found.append(f"eval {key}: {evaluation.get(key)} vs reference {reference['eval'].get(key)}")
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=ROOT, help="checkout whose ppo_mjx.py trains the run")
    parser.add_argument("--record", metavar="JSON", help="write the run as the reference instead of comparing")
    args = parser.parse_args()
    rows, evaluation = train(args.root)
    if args.record:
        with open(args.record, "w") as f:
            json.dump(dict(commit=commit(args.root), command=["python", "ppo_mjx.py", *ARGS],
                           xla_flags=XLA_CPU_FLAGS, rows=rows, eval=evaluation), f, indent=1)
        print(f"recorded {len(rows)} updates from {commit(args.root)} in {args.record}")
        return
    with open(REFERENCE) as f:
        reference = json.load(f)
    found = differences(reference, rows, evaluation)
    values = sum(len(r) for r in rows) + len(evaluation)
    if found:
        print(f"{commit(args.root)} differs from {reference['commit']} in {len(found)} of {values} values:")
        print("\n".join(found[:40]))
        sys.exit(1)
    print(f"{commit(args.root)} trains the same {len(rows)} updates as {reference['commit']}: all {values} values "
          f"equal bit for bit")


if __name__ == "__main__":
    main()
