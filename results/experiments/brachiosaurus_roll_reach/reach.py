"""How far sideways the Brachiosaurus can put its feet in one step, against where a sideways kick's capture point lies.

    python results/experiments/brachiosaurus_roll_reach/reach.py

Plain MuJoCo, nominal model, home keyframe. A foot's reach: its pad's sideways distance from the body's midline with
its hip (shoulder) roll at the most outward angle an action of +-1 reaches (action_scale times the joint's limit),
the other joints at home; at the centre of mass's fore-aft position, the line between hind and front feet. The capture
point of a sideways speed v (linear inverted pendulum): v * sqrt(com height / g) beside the centre of mass; a kick whose
capture point lies past the reach cannot be stopped by one step. Pushes come from a uniform direction, so a kick of
speed v at angle a has sideways part v |sin a|: the share of directions past the reach is 1 - (2 / pi) asin(reach /
capture point)."""
import math

import mujoco
import numpy as np

ACTION_SCALE = 0.5  # configs/stages.py
ROLL_JOINTS = ("hl_hip_roll", "fl_shoulder_roll")  # left side; the right mirrors it

model = mujoco.MjModel.from_xml_path("models/brachiosaurus.xml")
data = mujoco.MjData(model)


def reach(roll_limit, action_scale):
    """(hind foot, front foot, the line between them at the centre of mass): sideways distance (m) from the midline."""
    mujoco.mj_resetDataKeyframe(model, data, 0)
    for joint in ROLL_JOINTS:
        data.joint(joint).qpos = action_scale * roll_limit
    mujoco.mj_forward(model, data)
    hind, front = data.site("hl_foot_touch").xpos, data.site("fl_foot_touch").xpos
    com_x = data.subtree_com[1][0]
    return hind[1], front[1], hind[1] + (front[1] - hind[1]) * (com_x - hind[0]) / (front[0] - hind[0])


mujoco.mj_resetDataKeyframe(model, data, 0)
mujoco.mj_forward(model, data)
com_height = data.subtree_com[1][2]
com_x, time_scale = data.subtree_com[1][0], math.sqrt(com_height / 9.81)
behind, ahead = com_x - data.site("hl_foot_touch").xpos[0], data.site("fl_foot_touch").xpos[0] - com_x
beside = reach(0.0, 0.0)[2]
print(f"centre of mass {com_height:.3f} m up; at home the feet stand {beside:.3f} m beside it, {ahead:.3f} ahead and "
      f"{behind:.3f} behind: standing still, the capture point stays within them up to "
      f"{beside / time_scale:.2f} m/s sideways, {ahead / time_scale:.2f} forward, {behind / time_scale:.2f} backward")
speeds = (0.9, 1.6, 2.4)
print("| roll limit (rad) | action_scale | roll reached (rad) | hind, front, at the centre of mass (m) | "
      + " | ".join(f"share of {v} m/s kicks past it (capture point {v * math.sqrt(com_height / 9.81):.2f} m)"
                   for v in speeds) + " |")
print("|---:|---:|---:|---|" + "---:|" * len(speeds))
for roll_limit, action_scale in ((0.35, ACTION_SCALE), (0.7, ACTION_SCALE), (0.35, 1.0), (1.4, ACTION_SCALE)):
    hind, front, at_com = reach(roll_limit, action_scale)
    shares = [1 - 2 / np.pi * math.asin(min(1.0, at_com / (v * math.sqrt(com_height / 9.81)))) for v in speeds]
    print(f"| {roll_limit} | {action_scale} | {roll_limit * action_scale:.3f} | "
          f"{hind:.3f}, {front:.3f}, {at_com:.3f} | "
          + " | ".join(f"{s:.2f}" for s in shares) + " |")
