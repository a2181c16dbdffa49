"""How fast does a stage-2 policy take up a new command? The velocity error by time since the command changed, the
gains fitted on settled steps (2 s or more after the change), and the forward step response.

    python lag.py <stage 2> --episodes 32
"""
import argparse, json, os, sys
sys.path.insert(0, os.getcwd())
from analysis import tracking_errors as te  # noqa: E402  (play first: the OpenGL backend)
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import play  # noqa: E402

BINS_S = (0.0, 0.5, 1.0, 2.0, 3.0, 10.0)

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("--episodes", type=int, default=32)
parser.add_argument("--out")
args = parser.parse_args()
exported = play.load_exported(args.source)
dt = exported.config["ctrl_dt"]
data, draws = mujoco.MjData(exported.mj_model), play.numpy_draws(np.random.default_rng(0))
episodes = [te.traced_episode(exported, data, draws)[0] for _ in range(args.episodes)]
since, lin, seg_rows, response = [], [], [], []
for rows in episodes:
    moved, command = rows[:, :3], rows[:, 3:6]
    t = np.zeros(len(rows))
    segments = te.command_segments(command)
    for i, (start, end) in enumerate(segments):
        t[start:end] = np.arange(end - start) * dt
        settled = slice(start + round(2.0 / dt), end)
        if end - start >= round(3.0 / dt):
            seg_rows.append([end - start - round(2.0 / dt), *command[start], *moved[settled].mean(axis=0)])
        if i and abs(command[start, 0] - command[start - 1, 0]) > 1.0 and end - start >= round(3.0 / dt):
            old, new = command[start - 1, 0], command[start, 0]
            response.append((moved[start:start + round(3.0 / dt), 0] - old) / (new - old))
    since.append(t)
    lin.append(te.errors(moved, command)[0])
since, lin = np.concatenate(since), np.concatenate(lin)
record = dict(source=args.source, episodes=args.episodes, lin_vel_error=float(lin.mean()), by_time_since_command=[])
for lo, hi in zip(BINS_S[:-1], BINS_S[1:]):
    mask = (since >= lo) & (since < hi)
    record["by_time_since_command"].append(dict(seconds=[lo, hi], share=float(mask.mean()),
                                                lin_vel_error=float(lin[mask].mean())))
seg = np.array(seg_rows)
w, cmd, mean = seg[:, 0], seg[:, 1:4], seg[:, 4:7]
record["settled_gains"] = te.fitted_gains(cmd, mean, w)
record["settled_segment_error"] = float(np.average(te.errors(mean, cmd)[0], weights=w))
resp = np.array(response)
record["forward_step_response"] = dict(changes=len(resp), share_of_change_taken_up={
    f"{s:.1f}s": float(resp[:, round(s / dt) - 1].mean()) for s in (0.2, 0.5, 1.0, 1.5, 2.0, 3.0)})
print(json.dumps(record, indent=1))
if args.out:
    json.dump(record, open(args.out, "w"), indent=1)
