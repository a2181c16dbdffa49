"""Do the Velociraptor's feet spin on the floor while they carry it? Per held command: the RMS of the world yaw rate
of each foot body (metatarsus, toes) over the steps its touch sensor reads over --load N (default 1), against the pelvis's yaw rate
RMS; and the pelvis's yaw rate RMS over steps with one foot touching against steps with both. Plain MuJoCo through
play.py (the exported policy, randomization and pushes as trained), commands held for whole episodes.

    python foot_spin.py <stage-2 folder with policy.onnx> [--episodes 6]
"""
import argparse
import os
import sys

sys.path.insert(0, os.getcwd())  # run from the repository root

import play  # noqa: E402  first: it chooses the OpenGL backend before MuJoCo loads
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

COMMANDS = ("0,0,0", "1,0,0", "0,0,0.5")
FEET = (("l_foot", "l_foot_touch"), ("l_toes", "l_toes_touch"), ("r_foot", "r_foot_touch"),
        ("r_toes", "r_toes_touch"))

parser = argparse.ArgumentParser()
parser.add_argument("source")
parser.add_argument("--episodes", type=int, default=6)
parser.add_argument("--load", type=float, default=1.0, help="touch force (N) that counts as carrying")
args = parser.parse_args()
exported = play.load_exported(args.source)
m = exported.mj_model
print(f"{args.source}: touch over {args.load:g} N; foot geoms' condim {sorted(set(m.geom_condim[m.geom_contype == 2].tolist()))}")
bodies = [m.body(name).id for name, _ in FEET]
adr = [m.sensor_adr[m.sensor(name).id] for _, name in FEET]
pelvis = m.body("pelvis").id
for text in COMMANDS:
    held = play.holding(exported, play.parse_command(text))
    data, draws = mujoco.MjData(m), play.numpy_draws(np.random.default_rng(0))
    foot_rates, pelvis_rates, support = [], [], []

    def on_step(data, push_speed):
        touching = data.sensordata[adr] > args.load
        foot_rates.append(np.where(touching, data.cvel[bodies, 2], np.nan))
        pelvis_rates.append(data.cvel[pelvis, 2])
        left, right = touching[0] | touching[1], touching[2] | touching[3]
        support.append(int(left) + int(right))

    for _ in range(args.episodes):
        play.run_episode(held, data, draws, on_step=on_step)
    foot_rates, pelvis_rates, support = np.array(foot_rates), np.array(pelvis_rates), np.array(support)
    rms = lambda x: float(np.sqrt(np.nanmean(np.square(x))))  # noqa: E731
    print(f"command {text}: stance feet yaw rate RMS (rad/s) " + " ".join(
        f"{name} {rms(foot_rates[:, i]):.3f}" for i, (name, _) in enumerate(FEET)) +
        f"; pelvis {rms(pelvis_rates):.3f} (one foot down {rms(pelvis_rates[support == 1]):.3f} in "
        f"{np.mean(support == 1):.2f} of steps, both {rms(pelvis_rates[support == 2]):.3f} in "
        f"{np.mean(support == 2):.2f})")
