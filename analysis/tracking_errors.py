"""Where does a stage-2 policy's tracking error come from: the stride's wobble, a bias, pushes or command changes?

The gate judges per-step errors: each step's horizontal velocity and yaw rate against the command, averaged over the
episode. A body that follows the command on average but sways within each stride, one that walks steadily at the
wrong speed and one that lags after each redraw read the same there. This plays the stage's random command schedule
(plain MuJoCo through play.py, the exported policy, randomization and pushes as trained) and splits the errors.

    python analysis/tracking_errors.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage2
    python analysis/tracking_errors.py <stage 2> --episodes 32 --window 0.5 --out tracking_errors.json
    python analysis/tracking_errors.py <stage 2> --episodes 1 --plot tracking.png   # see one episode follow

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

`--plot`: the first episode's forward and sideways speed and yaw rate against time, each step's and their `--window`
average within each command, under the command, with the pushes marked (legged_gym's play.py plots the same).
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
import figures  # noqa: E402
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


def smoothed(moved, command, window):
    """`moved` averaged over `window` steps around each step, within the run of steps that held its command."""
    return np.concatenate([moving_average(moved[start:end], window) for start, end in command_segments(command)])


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
        step_errors = errors(moved, command)
        for name, values in [("per_step", step_errors), ("window", errors(smoothed(moved, command, window), command)),
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


TRACE_PANELS = (("forward speed (m/s)", 0), ("sideways speed, to the left (m/s)", 1),
                ("yaw rate, to the left (rad/s)", 2))


def trace_lines(rows, ctrl_dt, window_s):
    """What the trace figure draws of one traced episode: the time of each step (s), then per panel (title, command,
    the body's per-step value, its `window_s` average within each command), and the times of the pushes."""
    window = max(1, round(window_s / ctrl_dt))
    moved, command = rows[:, :3], rows[:, 3:6]
    averaged = smoothed(moved, command, window)
    panels = [(title, command[:, j], moved[:, j], averaged[:, j]) for title, j in TRACE_PANELS]
    time_s = ctrl_dt * np.arange(1, len(rows) + 1)  # each row is read after its control step
    return time_s, panels, time_s[rows[:, 6] > 0]


def trace_png(rows, ctrl_dt, window_s, title):
    """PNG bytes: one traced episode as legged_gym's play.py plots one, the command against the body's velocity."""
    time_s, panels, pushes = trace_lines(rows, ctrl_dt, window_s)
    fig, axes = figures.figure(len(panels), 1, (10, 7.5))
    for ax, (panel, command, per_step, averaged) in zip(axes, panels):
        ax.plot(time_s, per_step, color="0.75", linewidth=0.8, label="body, per step")
        ax.plot(time_s, averaged, color="tab:blue", label=f"body, {window_s:g} s average")
        ax.plot(time_s, command, color="tab:green", linewidth=2.0, label="command")
        for push in pushes:
            ax.axvline(push, color="tab:red", alpha=0.4, linewidth=1.0)
        ax.set_title(panel, fontsize=10)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper right", fontsize=8, ncol=3)
    axes[-1].set_xlabel("time (s); red lines: pushes")
    return figures.png(fig, title)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a stage-2 policy: policy.onnx (policy.json beside it) or the folder of both")
    parser.add_argument("--episodes", type=int, default=32, help="episodes of the random command schedule")
    parser.add_argument("--seed", type=int, default=0, help="seed of the episodes' starts, pushes, draws and commands")
    parser.add_argument("--window", type=float, default=0.5, help="seconds of the velocity average (`window`)")
    parser.add_argument("--out", help="write the record as JSON here")
    parser.add_argument("--plot", metavar="PNG", help="draw the first episode's command and velocities here")
    args = parser.parse_args(argv)
    try:
        if args.episodes < 1:
            raise ConfigError(f"--episodes {args.episodes}: at least 1")
        if not args.window > 0:
            raise ConfigError(f"--window {args.window}: more than 0 seconds")
        if args.plot and not args.plot.lower().endswith(".png"):
            raise ConfigError(f"--plot {args.plot}: a .png file")
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
    if args.plot:
        rows, first = traced[0]
        ending = "to the time limit" if first["reached_time_limit"] else f"ended at step {first['episode_length']}"
        title = (f"{record['env']}: plain MuJoCo, episode 1 of seed {args.seed} ({ending}); per-step errors "
                 f"{first['lin_vel_error_mean']:.3f} m/s, {first['yaw_rate_error_mean']:.3f} rad/s")
        files.atomic_write(args.plot, trace_png(rows, exported.config["ctrl_dt"], args.window, title))
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
