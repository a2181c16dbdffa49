"""The species side by side: each curriculum's stages (steps, training time, gate) and each stage's final policy on
fresh episodes in MJX and in plain MuJoCo, with a video of stage 3.

    python benchmarks/species_table.py results/trex_curriculum_cpu_seed0 results/velociraptor_curriculum_cpu_seed0 \
        results/brachiosaurus_curriculum_cpu_seed0

For every stage folder it runs `python evaluate.py <stage> --episodes 64 --seed 2000000 --physics mjx|mujoco` (seed
apart from training's and the gates'; the Gaussian's mean action, as deployed and gated: eval_mjx_mean.json and
eval_mujoco_mean.json) and the same in MJX with sampled actions (`--sampled`, white noise: eval_mjx_sampled.json),
each skipped where it exists with the same episodes and seed, and films stage 3 (`<species>_stage3.gif`, skipped
where it exists). Then it writes results/species.md, the table the README shows.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import evaluate  # noqa: E402  first: it chooses the log level and OpenGL backend before JAX and MuJoCo load

import runs  # noqa: E402
from configs import CPU_CURRICULUM_DEFAULTS  # noqa: E402

EPISODES, SEED = 64, 2_000_000
EVALUATIONS = (("mjx", "mean"), ("mujoco", "mean"), ("mjx", "sampled"))  # (physics, actions)


def evaluation(stage_dir, physics, actions):
    """The stage's evaluation of EPISODES episodes from SEED (eval_<physics>_<actions>.json), run now unless it
    exists."""
    path = os.path.join(stage_dir, f"eval_{physics}_{actions}.json")
    if os.path.exists(path):
        saved = json.load(open(path))
        if (saved["episodes"], saved["seed"]) == (EPISODES, SEED):
            return saved
    evaluate.main([stage_dir, "--episodes", str(EPISODES), "--seed", str(SEED), "--physics", physics, f"--{actions}"])
    return json.load(open(path))


def film(stage_dir, name):
    """A GIF of the stage's first two episodes (MJX), unless it exists; its path. Small (240x180): the repository
    travels to a lent GPU within 64 MiB."""
    path = os.path.join(stage_dir, f"{name}.gif")
    if not os.path.exists(path):
        evaluate.main([stage_dir, "--episodes", "4", "--seed", str(SEED), "--video", path, "--video-episodes", "2",
                       "--width", "240", "--height", "180", "--out", os.path.join(stage_dir, "eval_video.json")])
    return path


def cell(summary, key, digits=2):
    value = summary.get(key)
    return "-" if value is None else f"{value:.{digits}f}"


def species_rows(folder):
    """Markdown rows for one curriculum folder, where and when its evaluations ran, and its stage-3 video."""
    state = json.load(open(os.path.join(folder, "curriculum.json")))
    rows, evaluated = [], {}
    for record in state["stages"]:
        stage_dir = os.path.join(folder, record["stage"])
        results = [evaluation(stage_dir, physics, actions) for physics, actions in EVALUATIONS]
        evaluated |= {where(r): None for r in results}
        gate = "passed" if record["gate_passed"] else "**not passed**"
        three = lambda key, digits=2: " / ".join(cell(r, key, digits) for r in results)
        rows.append(f"| {record['stage']} | {record['env_steps'] / 1e6:.2f}M | {record['train_wall_s'] / 60:.1f} | "
                    f"{gate} | {three('success_rate')} | {three('episode_length', 0)} | "
                    f"{three('forward_speed_mean')} | {three('lin_vel_error_mean')} | {three('yaw_rate_error_mean')} |")
    finished = len(state["stages"]) == 3
    video = film(os.path.join(folder, state["stages"][-1]["stage"]), f"{state['species']}_stage3") if finished \
        else None
    return state, rows, list(evaluated), video


def where(record):
    """The date and machine of a record: "2026-11-26 cpu (AMD EPYC)"."""
    machine = record.get("machine", {})
    return f"{record.get('date', '?')} {machine.get('backend', '?')} ({machine.get('cpu', '?')})"


def settings(overrides):
    """The curriculum's settings apart from the CPU's sizing defaults, as `--set` would give them."""
    changed = [f"{key}={value}" for key, value in overrides.items() if CPU_CURRICULUM_DEFAULTS.get(key) != value]
    return "settings " + ", ".join(changed) if changed else "default settings"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curricula", nargs="+", help="curriculum folders")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "species.md"))
    args = parser.parse_args(argv)
    given = " ".join(sys.argv[1:] if argv is None else argv)
    lines = ["# The species side by side", "",
             f"`python benchmarks/species_table.py {given}`. Each stage's final policy on "
             f"{EPISODES} fresh episodes (seed {SEED:,}, apart from training's and the gates', under the randomization "
             "each was trained with): the Gaussian's mean action (as deployed and gated) in MJX / the same in plain "
             "MuJoCo (C, float64; same starts, pushes, randomization draws, observations and rewards) / sampled "
             "actions (white noise of the policy's std, as training samples where the noise is not correlated in "
             "time) in MJX. Success: stage 1 standing "
             "at the time limit, stage 3 the tip at the target; stage 2 has none (its gate is on tracking the velocity "
             "command: episode-mean errors; '-' for a stage without commands). Training "
             "time: updates only, compiles and gate evaluations excluded. Written "
             f"{time.strftime('%Y-%m-%d')}; an evaluation whose file exists with these episodes and seed is reused, "
             "not rerun: each species' last row says where and when its curriculum trained and its evaluations ran.",
             "",
             "| stage | steps | training (min) | gate | success: MJX / MuJoCo / MJX sampled | episode length: same | "
             "forward speed (m/s): same | tracking error (m/s): same | yaw-rate error (rad/s): same |",
             "|---|---:|---:|---|---|---|---|---|---|"]
    videos = []
    for folder in args.curricula:
        state, rows, evaluated, video = species_rows(folder)
        trained = "; ".join(where(session) for session in state["sessions"])
        lines += rows
        lines.append(f"| *{state['species']}: {len(state['stages'])}/3 stages, {settings(state['overrides'])}, trained "
                     f"{trained}; evaluated {'; '.join(evaluated)}* | | | | | | | | |")
        if video:
            videos.append(f"![{state['species']} stage 3]({os.path.relpath(video, os.path.dirname(args.out))})")
    lines += ["", *videos]
    runs.atomic_write(args.out, "\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
