"""How does a stage-2 policy follow each command when that command is held for whole episodes?

The gate judges the per-step errors over the stage's random command schedule; those mix steadiness with the turn
itself. Held for an episode, one command at a time, a policy that turns the commanded way but wobbles (a high per-step
yaw-rate error, an episode mean yaw rate near the command) reads apart from one that does not turn, and the commands
a body falls under show up one by one. Plain MuJoCo through play.py (the exported ONNX policy, randomization and
pushes as trained), without JAX.

    python analysis/held_commands.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage2
    python analysis/held_commands.py <stage 2> --commands 0,0,1 1,0,0.5 --episodes 16 --out held.json

Per command: the share of episodes reaching the time limit; each episode's mean yaw rate (its heading change from
the end of the first second to its last step, over that time: nan for an episode shorter than two seconds) and mean
forward speed; the per-step errors (lin_vel_error_mean, yaw_rate_error_mean) averaged over the episodes.
"""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import play  # noqa: E402  first: it chooses the OpenGL backend before MuJoCo loads
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import files  # noqa: E402
from configs import ConfigError  # noqa: E402

COMMANDS = ("0,0,0", "0.5,0,0", "1,0,0", "2.5,0,0", "-0.5,0,0", "0,0.3,0", "0,0,0.5", "0,0,-0.5", "0,0,0.75", "0,0,1",
            "0,0,-1", "1,0,0.5", "2,0,1")
SETTLE_S = 1.0  # seconds left out of the mean yaw rate: the start and the first command's take-up


def heading(quaternions):
    """Unwrapped yaw (rad, to the left) of each root quaternion (w, x, y, z)."""
    w, x, y, z = np.asarray(quaternions).T
    return np.unwrap(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z)))


def mean_yaw_rate(quaternions, ctrl_dt):
    """The heading's change from SETTLE_S on to the last pose, over that time (rad/s); nan for fewer than two
    seconds of poses."""
    settle = round(SETTLE_S / ctrl_dt)
    yaw = heading(quaternions)
    if len(yaw) - 1 < 2 * settle:
        return float("nan")
    return float((yaw[-1] - yaw[settle]) / (ctrl_dt * (len(yaw) - 1 - settle)))


def held(exported, command, episodes, seed):
    """The record of `episodes` episodes of `exported` holding `command` (see the module's docstring)."""
    exported = play.holding(exported, command)
    data, draws = mujoco.MjData(exported.mj_model), play.numpy_draws(np.random.default_rng(seed))
    records, yaw_rates = [], []
    for _ in range(episodes):
        poses = []
        record, _ = play.run_episode(exported, data, draws, poses)
        records.append(record)
        yaw_rates.append(mean_yaw_rate(np.asarray(poses)[:, 3:7], exported.config["ctrl_dt"]))
    mean = lambda key: float(np.mean([r[key] for r in records]))  # noqa: E731
    return dict(command=list(command), reached_time_limit=mean("reached_time_limit"), yaw_rate=yaw_rates,
                forward_speed=[r["forward_speed_mean"] for r in records],
                lin_vel_error_mean=mean("lin_vel_error_mean"), yaw_rate_error_mean=mean("yaw_rate_error_mean"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a stage-2 policy: policy.onnx (policy.json beside it) or the folder of both")
    parser.add_argument("--commands", nargs="+", default=list(COMMANDS), metavar="VX,VY,YAW",
                        help="commands to hold, each forward, left (m/s) and yaw rate (rad/s, to the left)")
    parser.add_argument("--episodes", type=int, default=6, help="episodes per command")
    parser.add_argument("--seed", type=int, default=0, help="seed of every command's starts, pushes and draws")
    parser.add_argument("--out", help="write the records as JSON here")
    args = parser.parse_args(argv)
    try:
        if args.episodes < 1:
            raise ConfigError(f"--episodes {args.episodes}: at least 1")
        held_commands = [play.parse_command(text) for text in args.commands]
        exported = play.holding(play.load_exported(args.source), held_commands[0])
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    start, rows = time.perf_counter(), []
    print(f"{exported.spec['env']}, {args.episodes} episodes per command (plain MuJoCo, seed {args.seed})")
    print("command (m/s, m/s, rad/s) | to the time limit | mean yaw rate per episode (rad/s) | per-step errors "
          "(m/s, rad/s)")
    for command in held_commands:
        row = held(exported, command, args.episodes, args.seed)
        rows.append(row)
        print(f"{','.join(f'{c:g}' for c in command):>13} | {row['reached_time_limit']:.2f} | "
              f"{' '.join(f'{r:.2f}' for r in row['yaw_rate'])} | {row['lin_vel_error_mean']:.2f}, "
              f"{row['yaw_rate_error_mean']:.2f}", flush=True)
    if args.out:
        record = dict(env=exported.spec["env"], source=args.source, episodes=args.episodes, seed=args.seed,
                      commands=rows, wall_s=time.perf_counter() - start)
        files.write_record(args.out, record, " ".join(["python analysis/held_commands.py",
                                                       *(argv if argv is not None else sys.argv[1:])]),
                           ["mujoco", "onnxruntime", "numpy"])
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
