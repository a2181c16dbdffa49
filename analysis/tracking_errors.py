"""Where does a stage-2 policy's tracking error come from: the stride's wobble, a bias, pushes or command changes?

The gate judges per-step errors: each step's horizontal velocity and yaw rate against the command, averaged over the
episode. A body that follows the command on average but sways within each stride, one that walks steadily at the
wrong speed and one that lags after each redraw read the same there. This plays the stage's random command schedule
(plain MuJoCo through play.py, the exported policy, randomization and pushes as trained) and splits the errors.

    python analysis/tracking_errors.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage2
    python analysis/tracking_errors.py <stage 2> --episodes 32 --window 0.5 --out tracking_errors.json

For the velocity (m/s) and the yaw rate (rad/s), over every step of every episode:
- `per_step`: the error evaluation reports (lin_vel_error, yaw_rate_error);
- `window`: the same with the body's velocity and yaw rate averaged over `--window` seconds around each step (within
  the time its command held), so that the stride's wobble is gone and the bias and slower drifts are left;
- `segment_mean`: the error of each command's mean velocity over the time it was held, weighted by that time (commands
  held a second or more): the bias alone;
- `after_push`, `after_command`, `quiet`: the per-step error within a second after a push, within a second after a
  command change, and on the other steps.

`gains`: each command segment's mean (forward, left, yaw rate) fitted by least squares, weighted by the segment's
time, as gains times the command (forward, left, yaw rate) plus an offset. A policy that follows has the identity and
zero offsets; the yaw row's `left` entry is how much it turns (rad/s) per m/s of commanded sideways speed.
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

import commands  # noqa: E402
import files  # noqa: E402
import tasks  # noqa: E402
from configs import ConfigError  # noqa: E402

AFTER_S = 1.0  # seconds after a push or a command change counted as its aftermath
AXES = ("forward", "left", "yaw_rate")


def traced_episode(exported, data, draws):
    """One episode of the random command schedule; returns (each step's velocity, yaw rate, command, push speed: an
    array of rows forward, left, yaw rate, commanded forward, left, yaw rate, push), the episode's record)."""
    rows = []

    def on_step(data, push_speed):
        velocity, yaw_rate = tasks.heading_velocity(exported.body, data)
        rows.append([*velocity, yaw_rate, *data.userdata[:commands.SIZE], push_speed])

    record, _ = play.run_episode(exported, data, draws, on_step=on_step)
    return np.array(rows), record


def moving_average(values, steps):
    """Centered moving average of `values` (steps x columns) over `steps` steps; at the ends over what the window
    holds."""
    kernel = np.ones(min(steps, len(values)))
    counts = np.convolve(np.ones(len(values)), kernel, mode="same")
    return np.stack([np.convolve(column, kernel, mode="same") / counts for column in values.T], axis=1)


def within(flags, steps):
    """For each step, whether a flagged step lies at most `steps - 1` steps before it (itself included)."""
    out = np.zeros(len(flags), bool)
    for start in np.flatnonzero(flags):
        out[start:start + steps] = True
    return out


def command_segments(command):
    """(start, end) of each run of steps holding one command."""
    changes = np.flatnonzero(np.any(np.diff(command, axis=0) != 0, axis=1)) + 1
    bounds = [0, *changes, len(command)]
    return list(zip(bounds[:-1], bounds[1:]))


def errors(moved, command):
    """Per-step (velocity error norm, absolute yaw-rate error) of `moved` (forward, left, yaw rate) against `command`."""
    return np.linalg.norm(moved[:, :2] - command[:, :2], axis=1), np.abs(moved[:, 2] - command[:, 2])


def fitted_gains(segment_commands, segment_means, weights):
    """{axis moved: {axis commanded: gain, "offset": offset}} by least squares weighted by `weights`."""
    design = np.column_stack([segment_commands, np.ones(len(segment_commands))]) * np.sqrt(weights)[:, None]
    solution, *_ = np.linalg.lstsq(design, segment_means * np.sqrt(weights)[:, None], rcond=None)
    return {moved: dict(zip((*AXES, "offset"), map(float, solution[:, j]))) for j, moved in enumerate(AXES)}


def split(episodes, ctrl_dt, window_s):
    """The record described in the module's docstring, from traced episodes (arrays as traced_episode returns)."""
    after, window = round(AFTER_S / ctrl_dt), max(1, round(window_s / ctrl_dt))
    parts = {name: ([], []) for name in ("per_step", "window", "after_push", "after_command", "quiet")}
    segment_rows = []
    for rows in episodes:
        moved, command, push = rows[:, :3], rows[:, 3:6], rows[:, 6]
        segments = command_segments(command)
        changed = np.zeros(len(command), bool)
        changed[[start for start, _ in segments[1:]]] = True
        masks = dict(after_push=within(push > 0, after), after_command=within(changed, after))
        masks["quiet"] = ~masks["after_push"] & ~masks["after_command"]
        smoothed = np.concatenate([moving_average(moved[start:end], window) for start, end in segments])
        step_errors = errors(moved, command)
        for name, values in [("per_step", step_errors), ("window", errors(smoothed, command)),
                             *[(name, tuple(e[mask] for e in step_errors)) for name, mask in masks.items()]]:
            for kept, value in zip(parts[name], values):
                kept.append(value)
        for start, end in segments:
            if end - start >= after:
                segment_rows.append([end - start, *command[start], *moved[start:end].mean(axis=0)])
    steps = sum(map(len, parts["per_step"][0]))
    record = {name: dict(lin_vel_error=float(np.mean(np.concatenate(lin))) if sum(map(len, lin)) else None,
                         yaw_rate_error=float(np.mean(np.concatenate(yaw))) if sum(map(len, yaw)) else None,
                         share_of_steps=sum(map(len, lin)) / steps)
              for name, (lin, yaw) in parts.items()}
    segments = np.array(segment_rows).reshape(-1, 7)
    weights, segment_commands, segment_means = segments[:, 0], segments[:, 1:4], segments[:, 4:7]
    lin, yaw = errors(segment_means, segment_commands)
    record["segment_mean"] = dict(lin_vel_error=float(np.average(lin, weights=weights)),
                                  yaw_rate_error=float(np.average(yaw, weights=weights)),
                                  share_of_steps=float(weights.sum()) / steps,
                                  segments=len(segments))
    record["gains"] = fitted_gains(segment_commands, segment_means, weights)
    return record


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a stage-2 policy: policy.onnx (policy.json beside it) or the folder of both")
    parser.add_argument("--episodes", type=int, default=32, help="episodes of the random command schedule")
    parser.add_argument("--seed", type=int, default=0, help="seed of the episodes' starts, pushes, draws and commands")
    parser.add_argument("--window", type=float, default=0.5, help="seconds of the velocity average (`window`)")
    parser.add_argument("--out", help="write the record as JSON here")
    args = parser.parse_args(argv)
    try:
        if args.episodes < 1:
            raise ConfigError(f"--episodes {args.episodes}: at least 1")
        if not args.window > 0:
            raise ConfigError(f"--window {args.window}: more than 0 seconds")
        exported = play.load_exported(args.source)
        play.require_commands(exported, "tracking errors")
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    start = time.perf_counter()
    data, draws = mujoco.MjData(exported.mj_model), play.numpy_draws(np.random.default_rng(args.seed))
    traced = [traced_episode(exported, data, draws) for _ in range(args.episodes)]
    record = split([rows for rows, _ in traced], exported.config["ctrl_dt"], args.window)
    record = dict(env=exported.spec["env"], source=args.source, episodes=args.episodes, seed=args.seed,
                  window_s=args.window, reached_time_limit=float(np.mean([r["reached_time_limit"] for _, r in traced])),
                  **record)
    print(f"{record['env']}, {args.episodes} episodes of its command schedule (plain MuJoCo, seed {args.seed}), "
          f"{record['reached_time_limit']:.2f} to the time limit")
    print("part | share of steps | velocity error (m/s) | yaw-rate error (rad/s)")
    for name in ("per_step", "window", "segment_mean", "after_push", "after_command", "quiet"):
        part = record[name]
        shown = [f"{part[k]:.3f}" if part[k] is not None else "-" for k in ("lin_vel_error", "yaw_rate_error")]
        print(f"{name} | {part['share_of_steps']:.2f} | {shown[0]} | {shown[1]}")
    print("gains: moved | per forward | per left | per yaw rate | offset")
    for moved, row in record["gains"].items():
        print(f"{moved} | {' | '.join(f'{row[k]:.2f}' for k in (*AXES, 'offset'))}")
    if args.out:
        files.write_record(args.out, record | dict(wall_s=time.perf_counter() - start),
                           " ".join(["python analysis/tracking_errors.py", *(argv if argv is not None else sys.argv[1:])]),
                           ["mujoco", "onnxruntime", "numpy"])
        print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
