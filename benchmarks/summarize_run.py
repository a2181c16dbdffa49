"""Markdown summary of a run folder: a learning-curve table from metrics.csv (every k-th update and the last) and the
evaluation from eval.json.

    python benchmarks/summarize_run.py results/trex_stage1_cpu_seed0 --rows 12
"""

import argparse
import csv
import json
import os

COLUMNS = ["env_steps", "episode_return", "episode_length", "terminations", "reward/upright_height", "pelvis_height",
           "approx_kl", "clip_fraction", "explained_variance", "entropy", "nan_resets"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--rows", type=int, default=12, help="learning-curve rows")
    args = parser.parse_args()
    with open(os.path.join(args.run_dir, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    every = max(1, len(rows) // args.rows)
    picked = rows[::every] + ([rows[-1]] if (len(rows) - 1) % every else [])
    columns = [c for c in COLUMNS if c in rows[0]]
    print("| update | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for row in picked:
        print(f"| {int(row['update'])} | " + " | ".join(f"{float(row[c]):.4g}" for c in columns) + " |")
    with open(os.path.join(args.run_dir, "eval.json")) as f:
        evaluation = json.load(f)
    print("\nDeterministic evaluation: " + ", ".join(f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}"
                                                     for k, v in evaluation.items()))


if __name__ == "__main__":
    main()
