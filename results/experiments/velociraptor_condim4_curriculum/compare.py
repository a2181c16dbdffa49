"""Each stage of the two condim-4 curricula against the condim-3 stage it is compared with, at the same updates: gate
evaluations (32 fresh episodes, mean action), then the final evaluations (64 fresh episodes, mean action).

    python results/experiments/velociraptor_condim4_curriculum/compare.py   # from the repository root at the record
"""
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SEED0 = "b268438:results/velociraptor_curriculum_cpu_seed0/"
SEED1_STAGE1 = "d66a0be:results/experiments/velociraptor_curriculum_stress_gate/velociraptor_curriculum_cpu_seed1/"
SEED1_STAGE2 = "29985ce:results/experiments/velociraptor_linear_adoption/vr_def_s1/"
BASELINES = {  # (run, stage): the same defaults with condim 3, via git show (seed 1's stage 3: none trained)
    ("vr_c4_full_s0", "velociraptor_stage1"): SEED0 + "velociraptor_stage1",
    ("vr_c4_full_s0", "velociraptor_stage2"): SEED0 + "velociraptor_stage2",
    ("vr_c4_full_s0", "velociraptor_stage3"): SEED0 + "velociraptor_stage3",
    ("vr_c4_full_s1", "velociraptor_stage1"): SEED1_STAGE1 + "velociraptor_stage1",
    ("vr_c4_full_s1", "velociraptor_stage2"): SEED1_STAGE2 + "velociraptor_stage2",
    ("vr_c4_full_s1", "velociraptor_stage3"): None,
}
EVALUATIONS = ("eval_mjx_mean", "eval_mujoco_mean", "eval_mjx_mean_push_1.5x_top", "eval_mujoco_mean_push_1.5x_top")
SHOWN = ("success_rate", "reached_time_limit", "lin_vel_error_mean", "yaw_rate_error_mean")


def git_json(path):
    done = subprocess.run(["git", "show", path], capture_output=True, text=True)
    return json.loads(done.stdout) if done.returncode == 0 else None


def line(metrics):
    return " ".join(f"{v:.3f}" for v in metrics.values()) if metrics else "-"


def shown(evaluation):
    return " ".join(f"{k} {evaluation[k]:.3f}" for k in SHOWN if evaluation.get(k) is not None) if evaluation else "-"


for (run, stage), baseline in BASELINES.items():
    folder = os.path.join(HERE, run, stage)
    if not os.path.isdir(folder):
        continue
    print(f"== {run} {stage} against {baseline}")
    gate_path = os.path.join(folder, "gate.json")
    decisions = json.load(open(gate_path))["decisions"] if os.path.exists(gate_path) else []
    base = {d["update"]: d for d in (git_json(baseline + "/gate.json") or {}).get("decisions", [])} if baseline else {}
    print("gate evaluations (update: metrics [stress] | the baseline's)")
    for d in decisions:
        b = base.get(d["update"], {})
        print(f"  {d['update']:4d}: {line(d['metrics'])} [{line(d.get('stress_metrics'))}]"
              f" | {line(b.get('metrics'))} [{line(b.get('stress_metrics'))}]")
    for name in EVALUATIONS:
        path = os.path.join(folder, name + ".json")
        if os.path.exists(path):
            theirs = git_json(f"{baseline}/{name}.json") if baseline else None
            print(f"  {name}: {shown(json.load(open(path)))} | {shown(theirs)}")
