"""Sideways tipping speed of the Brachiosaurus holding its home pose, its hips and shoulders set wider (plain MuJoCo)."""
import os, re, sys
sys.path.insert(0, os.getcwd())
import mujoco, numpy as np
import tasks
from configs import get_config, with_overrides

SRC = open("models/brachiosaurus.xml").read()

def topples(model, body, speed, direction):
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.keyframe("home").id)
    for _ in range(round(1.0 / model.opt.timestep)):
        mujoco.mj_step(model, data)
    (x, y), c, s = tasks.facing(body, data), np.cos(direction), np.sin(direction)
    data.qvel[:2] += speed * np.array([c * x - s * y, s * x + c * y])
    for _ in range(round(3.0 / model.opt.timestep)):
        mujoco.mj_step(model, data)
        if tasks.fallen(body, data):
            return True
    return False

for scale in (1.0, 1.5, 2.0, 3.0):
    xml = SRC
    for name, y in (("hl_thigh", 0.24), ("hr_thigh", -0.24), ("fl_upper_arm", 0.28), ("fr_upper_arm", -0.28)):
        xml = xml.replace(f'<body name="{name}" pos="', f'<body name="{name}" pos="', 1)
        xml = re.sub(rf'(<body name="{name}" pos="[-0-9.]+ ){y}( )', rf'\g<1>{y * scale:.3f}\g<2>', xml)
    path = "models/_wide_tmp.xml"
    open(path, "w").write(xml)
    try:
        config = with_overrides(get_config("brachiosaurus_stage1"), dict(model="_wide_tmp.xml"))
        model = tasks.load_model(config)
        body = tasks.legged_body(config, model, np)
        speeds = {}
        for name, angle in (("forward", 0.0), ("sideways", np.pi / 2)):
            speeds[name] = next((round(float(v), 1) for v in np.arange(0.1, 3.01, 0.1) if topples(model, body, v, angle)), None)
        print(f"stance x{scale}: hips +-{0.24 * scale:.2f} m, shoulders +-{0.28 * scale:.2f} m: topples at {speeds}", flush=True)
    finally:
        os.remove(path)
