"""How do a policy's episodes end (success, time-out or fall), and where did each kind of end leave the body?

Every task measure at the last step, as quartiles over the episodes that ended that way.

    python analysis/episode_ends.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage3 --episodes 128
    python analysis/episode_ends.py results/trex_curriculum_cpu_seed0/trex_stage2 --episodes 128

A stage-3 policy that times out with its tip next to the target (tip_distance just above the success radius) is
content to hover there; one that times out far away never found the target. From the pose each episode ended in it
also gives the pelvis' tilt sideways and forward (+) or back (-) (a fall that is all roll came from the side); for a
stage with velocity commands, the command it ended under (falls under backward commands: it cannot walk backward);
for a task with tip sites, the target's height above the floor, the nearest tip's gap to the target across
(horizontal) and below it (vertical: target minus tip height), and success in each third of the target heights: a
tip that stays on the floor under high targets has not learned to lift it. Mean action unless --sampled, in the
policy's own config (randomization and pushes as trained), seed apart from training's and the gates'. Writes
<folder>/episode_ends_<mean or sampled>.json.
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import evaluate  # noqa: E402  first: it chooses the log level and OpenGL backend before JAX and MuJoCo load
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import commands  # noqa: E402
import rendering  # noqa: E402
import runs  # noqa: E402
import tasks  # noqa: E402
import training  # noqa: E402
from analysis import fall_causes  # noqa: E402


def episode_ends(env, episodes):
    """{success, time-out, fall: boolean per episode}; a task without success has time-outs and falls only."""
    reached = np.asarray(episodes["reached_time_limit"])
    success = np.asarray(env.episode_success(episodes)) if env.episode_success else np.zeros_like(reached)
    return {"success": success, "time-out": reached & ~success, "fall": ~reached & ~success}


def end_pose_measures(env, episodes, poses):
    """Per episode, from the pose its last action was chosen in (plain MuJoCo, `rendering.set_pose`): how
    far the pelvis had tilted from its home attitude sideways (roll) and forward (pitch: + nose down, - back), in rad;
    for a stage with velocity commands, the command then; and for a task with tip sites, the target's height above
    the floor and the nearest tip's gap to it, across (horizontal) and below it (vertical: target minus tip
    height)."""
    model = env.mj_model
    data = mujoco.MjData(model)
    body = tasks.legged_body(env.config, model, np)
    last = np.asarray(poses)[np.asarray(episodes["episode_length"], int) - 1, np.arange(poses.shape[1])]
    ups, gaps, targets, held = [], [], [], []
    for pose in last:
        rendering.set_pose(model, data, pose)
        ups.append(tasks.pelvis_rotation(body, data)[2].copy())  # the world's up in the pelvis frame (a copy: the
        # rotation is a view of data, which the next pose overwrites)
        gaps.append(tasks.nearest_tip(body, data)[1] if len(body.tips) else np.zeros(3))
        targets.append(data.mocap_pos[body.target_mocap].copy())
        held.append(data.userdata[:commands.SIZE].copy())
    ups, gaps, targets, held = np.asarray(ups), np.asarray(gaps), np.asarray(targets), np.asarray(held)
    home = np.asarray(body.home_up)
    measures = dict(tilt_sideways=np.abs(np.arcsin(ups[:, 1]) - np.arcsin(home[1])),
                    tilt_forward=np.arcsin(home[0]) - np.arcsin(ups[:, 0]))  # the up axis leans back as the nose dips
    if env.config.get("command"):
        measures |= {f"command_{name}": held[:, i] for i, name in enumerate(commands.RANGES)}
    if len(body.tips):
        measures |= dict(target_height=targets[:, 2], tip_gap_horizontal=np.linalg.norm(gaps[:, :2], axis=1),
                         tip_gap_vertical=gaps[:, 2])
    return measures


def main(argv=None):
    args = fall_causes.policy_arguments(__doc__.splitlines()[0], 128).parse_args(argv)
    training.enable_compilation_cache()
    start = time.monotonic()
    path = os.path.join(args.folder, runs.CHECKPOINT)
    name, config, checkpoint = evaluate.checkpoint_settings(path, None, {})
    env, episodes, poses = fall_causes.policy_episodes(name, config, path, checkpoint, not args.sampled,
                                                       args.episodes, args.seed)
    episodes = dict(episodes, **end_pose_measures(env, episodes, poses))
    measures = [k for k in episodes if k not in ("episode_return", "reached_time_limit")]
    report = dict(folder=os.path.relpath(args.folder, ROOT), actions="sampled" if args.sampled else "mean",
                  episodes=args.episodes, seed=args.seed, machine=runs.machine(), ends={})
    print(f"{name}, {report['actions']} action, {args.episodes} episodes")
    ends = episode_ends(env, episodes)
    for end, chosen in ends.items():
        quartiles = {k: np.quantile(episodes[k][chosen], [0.25, 0.5, 0.75]).tolist() for k in measures
                     if chosen.any()}
        report["ends"][end] = dict(share=float(np.mean(chosen)), episodes=int(np.sum(chosen)), quartiles=quartiles)
        print(f"  {end}: {np.mean(chosen):.3f} ({np.sum(chosen)} episodes)")
        for k, q in quartiles.items():
            print(f"    {k:24s} " + " / ".join(f"{v:.3g}" for v in q))
    if config.get("tip_sites"):
        report["success_by_target_height"] = fall_causes.by_thirds(ends["success"], episodes["target_height"])
        print("  success by target height: " + "  ".join(f"[{t['low']:.2f}, {t['high']:.2f}] m: {t['success']:.2f}"
                                                         for t in report["success_by_target_height"]))
    report["wall_s"] = time.monotonic() - start
    runs.atomic_write(os.path.join(args.folder, f"episode_ends_{report['actions']}.json"),
                      json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
