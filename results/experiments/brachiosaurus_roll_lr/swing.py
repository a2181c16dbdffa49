"""How fast does a Brachiosaurus leg swing sideways? Plain MuJoCo, nominal model, the pelvis held in the air at its
home pose (gravity on): each hip or shoulder roll actuator's target steps from home to the roll an action of +1
reaches (half the joint's limit, action_scale 0.5), and we time the joint to half and to 90% of that step, with its
peak speed and overshoot; then the same with the foot on the ground, the body standing at home.
    python results/experiments/brachiosaurus_roll_lr/swing.py [MODEL.xml]"""
import sys

import mujoco
import numpy as np

path = sys.argv[1] if len(sys.argv) > 1 else "models/brachiosaurus.xml"
model = mujoco.MjModel.from_xml_path(path)
key = model.key("home")
print(f"{path}: timestep {model.opt.timestep} s")
for held in (True, False):
    print("pelvis held in the air" if held else "standing on its feet")
    for name in ("hl_hip_roll", "fl_shoulder_roll"):
        joint, actuator = model.joint(name), model.actuator(name)
        data = mujoco.MjData(model)
        mujoco.mj_resetDataKeyframe(model, data, key.id)
        if held:
            data.qpos[2] += 1.0
        root = data.qpos[:7].copy()
        home = data.qpos[joint.qposadr[0]]
        step = 0.5 * joint.range[1]  # an action of +1: action_scale of the way from home to the upper limit
        data.ctrl[actuator.id] = home + step
        angles, speeds = [], []
        for _ in range(int(1.0 / model.opt.timestep)):
            if held:
                data.qpos[:7], data.qvel[:6] = root, 0.0
            mujoco.mj_step(model, data)
            angles.append(data.qpos[joint.qposadr[0]] - home)
            speeds.append(data.qvel[joint.dofadr[0]])
        angles = np.array(angles)
        reach = lambda share: next((i + 1 for i, a in enumerate(angles) if a >= share * step), None)
        ms = lambda n: "never" if n is None else f"{n * model.opt.timestep * 1000:.0f} ms"
        print(f"  {name}: step {step:.3f} rad; half at {ms(reach(0.5))}, 90% at {ms(reach(0.9))}, "
              f"peak {max(speeds):.2f} rad/s, overshoot {max(angles) / step - 1:+.0%}, after 1 s {angles[-1] / step:.0%}")

# How long a kick leaves: standing at home and holding it, kicked sideways (the env adds the speed to the root's), the
# time until the pelvis tilts past the 0.6 rad that ends an episode.
for speed in (1.6, 2.4):
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, key.id)
    data.qvel[1] += speed
    fall = None
    for n in range(int(3.0 / model.opt.timestep)):
        mujoco.mj_step(model, data)
        up = np.zeros(3)
        mujoco.mju_rotVecQuat(up, np.array([0.0, 0.0, 1.0]), data.qpos[3:7])
        if np.arccos(np.clip(up[2], -1.0, 1.0)) > 0.6:
            fall = (n + 1) * model.opt.timestep
            break
    print(f"kicked sideways at {speed} m/s holding home: "
          + ("stands 3 s" if fall is None else f"tilts past 0.6 rad after {fall * 1000:.0f} ms"))
