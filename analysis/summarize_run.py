"""How did a run learn? Its learning curve as a Markdown table, and its final evaluation.

For a run folder (a single run or one stage of a curriculum): a table from its metrics.csv (every k-th update and the
last) and its final evaluation from eval.json, printed to paste into notes or an issue.

    python analysis/summarize_run.py results/trex_curriculum_cpu_seed0/trex_stage1 --rows 12
    python analysis/summarize_run.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage3 \
        --columns env_steps,success,tip_distance,reward/closing

A column the run's metrics.csv lacks (a measure of another stage's task) is left out.
"""

import argparse
import csv
import json
import os

COLUMNS = ["env_steps", "episode_return", "episode_length", "terminations", "reward/upright_height", "pelvis_height",
           "forward_speed", "success", "tip_distance", "approx_kl", "clip_fraction", "explained_variance", "entropy",
           "nan_resets"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--rows", type=int, default=12, help="learning-curve rows")
    parser.add_argument("--columns", default=",".join(COLUMNS), help="metrics.csv columns, comma-separated")
    args = parser.parse_args(argv)
    with open(os.path.join(args.run_dir, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    every = max(1, len(rows) // args.rows)
    picked = rows[::every] + ([rows[-1]] if (len(rows) - 1) % every else [])
    columns = [c for c in args.columns.split(",") if c in rows[0]]
    print("| update | " + " | ".join(columns) + " |")
    print("|---" * (len(columns) + 1) + "|")
    for row in picked:
        print(f"| {int(row['update'])} | " + " | ".join(f"{float(row[c]):.4g}" for c in columns) + " |")
    with open(os.path.join(args.run_dir, "eval.json")) as f:
        evaluation = json.load(f)
    print(f"\nFinal evaluation (eval.json, {evaluation.get('actions', 'mean')} actions): " + ", ".join(
        f"{k} = {v:.4g}" if isinstance(v, float) else f"{k} = {v}" for k, v in evaluation.items()))


if __name__ == "__main__":
    main()
