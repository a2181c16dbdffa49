"""How much a stage-2 policy's yaw rate jitters, and how often no foot touches the floor: 6 episodes of the random
command schedule in plain MuJoCo (play.py, draws seeded 0). Run from the repository root:
    python jitter.py <stage-2 folder>
"""
import sys
sys.path.insert(0, '.')
import mujoco
import numpy as np
import play, tasks

exported = play.load_exported(sys.argv[1])
data, draws = mujoco.MjData(exported.mj_model), play.numpy_draws(np.random.default_rng(0))
body = exported.body
rows, episodes = [], []
def on_step(d, push):
    _, yaw_rate = tasks.heading_velocity(body, d)
    yaw_acc = (tasks.pelvis_rotation(body, d) @ d.qacc[3:6])[2]
    rows.append([yaw_rate, d.userdata[2], yaw_acc, float((d.sensordata[body.touch_adr] > 0).any())])
for _ in range(6):
    rows.clear()
    play.run_episode(exported, data, draws, on_step=on_step)
    episodes.append(np.array(rows))
steps = np.concatenate(episodes)
step_change = np.concatenate([np.diff(e[:, 0]) for e in episodes])
print(f"{sys.argv[1]}: {len(steps)} steps; yaw-rate error {np.abs(steps[:, 0] - steps[:, 1]).mean():.3f} rad/s; "
      f"yaw acceleration^2 {np.mean(steps[:, 2] ** 2):.0f} (rad/s^2)^2; rms change of the yaw rate per control step "
      f"{np.sqrt(np.mean(step_change ** 2)):.3f} rad/s; steps with no foot on the floor {1 - steps[:, 3].mean():.2f}")
