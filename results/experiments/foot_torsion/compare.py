"""Each branch of this record against the stage 2 it is compared with, at the same updates: gate evaluations (32
fresh episodes, mean action) and training metrics in windows of 100 updates (sampled actions), then the final
evaluations (64 fresh episodes, mean action).

    python results/experiments/foot_torsion/compare.py     # from the repository root at the record's commit
"""
import csv
import io
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
BASELINES = {  # run: (its stage 2, the stage 2 it is compared with: the same settings with condim 3, via git show)
    "vr_condim4_s0": ("velociraptor_stage2", "a7e39f1:results/velociraptor_curriculum_cpu_seed0/velociraptor_stage2"),
    "vr_condim4_s1": ("velociraptor_stage2",
                      "29985ce:results/experiments/velociraptor_linear_adoption/vr_def_s1/velociraptor_stage2"),
    "trex_condim4_s0": ("trex_stage2", "a7e39f1:results/trex_curriculum_cpu_seed0/trex_stage2"),
}
WINDOW_METRICS = ("lin_vel_error", "yaw_rate_error", "episode_length", "reward/action_rate")


def git_file(path):
    return subprocess.run(["git", "show", path], capture_output=True, text=True, check=True).stdout


def window_means(rows, metric, lo, hi):
    values = [float(r[metric]) for r in rows if lo < int(r["update"]) <= hi and r.get(metric) not in (None, "")]
    return f"{sum(values) / len(values):.3f}" if values else "-"


def line(metrics):
    return " ".join(f"{v:.3f}" for v in metrics.values()) if metrics else "-"


for run, (stage, baseline) in BASELINES.items():
    folder = os.path.join(HERE, run, stage)
    if not os.path.isdir(folder):
        continue
    gate_path = os.path.join(folder, "gate.json")
    gate = json.load(open(gate_path))["decisions"] if os.path.exists(gate_path) else []
    base_gate = {d["update"]: d["metrics"] for d in json.loads(git_file(baseline + "/gate.json"))["decisions"]}
    print(f"== {run} against {baseline}")
    print("gate evaluations (update: to the time limit, m/s, rad/s | the baseline's)")
    for d in gate:
        print(f"  {d['update']:4d}: {line(d['metrics'])} | {line(base_gate.get(d['update']))}")
    rows = list(csv.DictReader(open(os.path.join(folder, "metrics.csv"))))
    base_rows = list(csv.DictReader(io.StringIO(git_file(baseline + "/metrics.csv"))))
    last = int(rows[-1]["update"])
    print("training metrics, means over updates (this run | the baseline's)")
    for lo in range(0, last, 100):
        hi = min(lo + 100, last)
        print(f"  {lo + 1:4d}-{hi:4d}: " + "  ".join(
            f"{m.split('/')[-1]} {window_means(rows, m, lo, hi)} | {window_means(base_rows, m, lo, hi)}"
            for m in WINDOW_METRICS))
    for physics in ("mjx", "mujoco"):
        path = os.path.join(folder, f"eval_{physics}_mean.json")
        base = json.loads(git_file(f"{baseline}/eval_{physics}_mean.json"))
        if os.path.exists(path):
            e = json.load(open(path))
            print(f"final, 64 fresh episodes, {physics}: to the time limit {e['reached_time_limit']:.3f}, "
                  f"{e['lin_vel_error_mean']:.3f} m/s, {e['yaw_rate_error_mean']:.3f} rad/s | the baseline's "
                  f"{base['reached_time_limit']:.3f}, {base['lin_vel_error_mean']:.3f}, "
                  f"{base['yaw_rate_error_mean']:.3f}")
