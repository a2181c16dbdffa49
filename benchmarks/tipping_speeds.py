"""How hard a push each body takes holding its home pose: the slowest velocity kick, by direction, that topples each
species when nothing acts (plain MuJoCo, nominal model, no randomization).

    python benchmarks/tipping_speeds.py       # writes results/tipping_speeds.json

A stage-1 push above this speed can only be survived by acting (leaning, bracing, stepping); one below it a rigid
body rides out. Set against the stage-1 push ranges it says how far past its passive limit training asks each policy
to recover, and how far past it the robustness targets (1.5x the top push) go. Each kick adds the speed to the free
root's horizontal velocity after the body has settled for a second on the home pose's motor targets, in the
direction given relative to the body's facing; the body falls as the env judges it (`tasks.fallen`) within three
seconds, or stands.
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import runs  # noqa: E402
import tasks  # noqa: E402
from configs import get_config  # noqa: E402

SPECIES = ("trex", "velociraptor", "brachiosaurus")
DIRECTIONS = dict(forward=0.0, diagonal=np.pi / 4, sideways=np.pi / 2)  # kick direction from the facing (rad)
SPEEDS = np.round(np.arange(0.1, 2.51, 0.1), 2)  # the kicks tried (m/s), slowest first
SETTLE_S, WATCH_S = 1.0, 3.0


def topples(model, body, speed, direction):
    """Whether a kick of `speed` (m/s) at `direction` (rad from the facing) topples the body holding its home pose."""
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.keyframe("home").id)
    for _ in range(round(SETTLE_S / model.opt.timestep)):
        mujoco.mj_step(model, data)
    (x, y), cos, sin = tasks.facing(body, data), np.cos(direction), np.sin(direction)
    data.qvel[:2] += speed * np.array([cos * x - sin * y, sin * x + cos * y])
    for _ in range(round(WATCH_S / model.opt.timestep)):
        mujoco.mj_step(model, data)
        if tasks.fallen(body, data):
            return True
    return False


def tipping_speeds(species):
    """{direction: the slowest of SPEEDS that topples `species`' stage-1 body kicked that way, or None if none does}."""
    config = get_config(f"{species}_stage1")
    model = tasks.load_model(config)
    body = tasks.legged_body(config, model, np)
    return {name: next((float(speed) for speed in SPEEDS if topples(model, body, speed, angle)), None)
            for name, angle in DIRECTIONS.items()}


def main():
    start = time.monotonic()
    speeds, pushes = {}, {}
    for species in SPECIES:
        speeds[species], pushes[species] = tipping_speeds(species), list(get_config(f"{species}_stage1")["push_speed"])
        print(f"{species}: topples at " + ", ".join(f"{k} {v} m/s" for k, v in speeds[species].items())
              + f"; stage-1 pushes {pushes[species][0]}-{pushes[species][1]} m/s", flush=True)
    record = dict(command="python benchmarks/tipping_speeds.py", date=time.strftime("%Y-%m-%d"),
                  machine=runs.machine(), speeds_tried=SPEEDS.tolist(), tipping_speed=speeds,
                  stage1_push_speed=pushes, wall_s=time.monotonic() - start)
    runs.atomic_write(os.path.join(ROOT, "results", "tipping_speeds.json"), json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
