"""How a Brachiosaurus stage-1 policy stands: its feet's sideways spread (m, across the pelvis, hind and front pairs) and
its hip and shoulder rolls outward (rad), averaged over every control step of 16 episodes in plain MuJoCo through its
ONNX export (play.py's episodes, seed 2,000,000), with its training pushes and without pushes; the most outward roll
of any leg; and the share of episodes to the time limit.
    python results/experiments/brachiosaurus_posture/stance.py STAGE1 ...   (each exported: python export.py STAGE1)"""
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.getcwd())
import play  # noqa: E402

EPISODES = 16
# A roll hinge turns about +x: positive moves a foot to +y, outward for a left leg, inward for a right one.
ROLLS = dict(hl_hip_roll=1, hr_hip_roll=-1, fl_shoulder_roll=1, fr_shoulder_roll=-1)

for stage in sys.argv[1:]:
    exported = play.load_exported(stage)
    model = exported.mj_model
    limit = model.joint("hl_hip_roll").range[1]
    print(f"{stage} (roll limit +-{limit:.2f} rad)")
    for name, changes in (("training pushes", {}), ("no pushes", dict(push_interval=0))):
        policy = play.exported_policy(exported.spec, dict(exported.config, **changes), model, exported.session)
        data, draws = mujoco.MjData(model), play.numpy_draws(np.random.default_rng(2_000_000))
        hind, front, outward, ends = [], [], [], []

        def on_step(data, push_speed):
            side = data.body("pelvis").xmat.reshape(3, 3)[:, 1]  # the pelvis' left axis in the world
            hind.append((data.body("hl_foot").xpos - data.body("hr_foot").xpos) @ side)
            front.append((data.body("fl_foot").xpos - data.body("fr_foot").xpos) @ side)
            outward.append([sign * data.qpos[model.joint(j).qposadr[0]] for j, sign in ROLLS.items()])

        for _ in range(EPISODES):
            ends.append(play.run_episode(policy, data, draws, on_step=on_step)[0]["reached_time_limit"])
        outward = np.array(outward)
        print(f"  {name:>15}: feet apart hind {np.mean(hind):.2f} m, front {np.mean(front):.2f} m; rolls outward "
              f"{outward.mean():+.3f} rad (legs {np.round(outward.mean(0), 3).tolist()}), the most {outward.max():.2f}; "
              f"to the time limit {np.mean(ends):.2f}")
