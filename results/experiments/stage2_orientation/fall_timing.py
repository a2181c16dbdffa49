"""When does the T-Rex fall in stage 2, relative to command changes, and how is it pitched? A diagnostic: python fall_timing.py <stage> <episodes> (mean action, seed 2,000,000)."""
import sys, os, json
sys.path.insert(0, "/work/main"); sys.path.insert(0, "/work/main/analysis")
import evaluate, fall_causes, runs, training, numpy as np
folder, n = sys.argv[1], int(sys.argv[2])
training.enable_compilation_cache()
path = os.path.join(folder, runs.CHECKPOINT)
name, config, checkpoint = evaluate.checkpoint_settings(path, None, {})
env, result, poses = fall_causes.policy_episodes(name, config, path, checkpoint, True, n, 2_000_000)
poses = np.asarray(poses); length = np.asarray(result["episode_length"]).astype(int)
cmd = poses[:, :, -3:]
fell = ~np.asarray(result["reached_time_limit"], bool)
print("to time limit", 1 - fell.mean())
rows = []
for e in np.where(fell)[0]:
    L = length[e]; c = cmd[:L, e]
    changes = np.where(np.any(np.abs(np.diff(c, axis=0)) > 1e-6, axis=1))[0] + 1
    last = changes[changes < L].max() if len(changes) else 0
    prev = c[last - 1] if last > 0 else None
    rows.append((e, L, L - last, c[L - 1].round(2).tolist(), None if prev is None else prev.round(2).tolist()))
    print(f"ep {e:3d} fell at {L:3d}, {L-last:3d} steps after cmd change; cmd {c[L-1].round(2)} prev {None if prev is None else prev.round(2)}")
# all commands seen at the start of episodes / survivors
allc = np.concatenate([cmd[:length[e], e] for e in range(n)])
print("steps:", len(allc))

import mujoco
m = env.mj_model; d = mujoco.MjData(m)
head = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_BODY, "head")
d.qpos[:] = m.qpos0; mujoco.mj_kinematics(m, d); print("home head z", d.xpos[head, 2], "pelvis", d.qpos[2])
for e in np.where(fell)[0]:
    L = length[e]; q = poses[L-1, e, :m.nq]
    d.qpos[:] = q; mujoco.mj_kinematics(m, d)
    w,x,y,z = q[3:7]; upz = 1 - 2*(x*x+y*y)
    # pitch sign: body x axis z component
    xz = 2*(x*z - w*y)
    vel = (poses[L-1, e, :2] - poses[max(L-26,0), e, :2]) / (0.02*min(25, L-1))
    print(f"ep {e:3d} pelvis {q[2]:.2f} head {d.xpos[head,2]:.2f} up_z {upz:.2f} xaxis_z {xz:+.2f} vel {np.linalg.norm(vel):.2f} cmd {cmd[L-1,e].round(2)}")
print("pitch (x-axis z) over the last 100 steps, every 10")
for e in np.where(fell)[0][:12]:
    L = length[e]; q = poses[max(L-100,0):L, e, 3:7]
    w,x,y,z = q.T; xz = 2*(x*z - w*y)
    print(e, np.round(xz[::10], 2), "height", np.round(poses[max(L-100,0):L:10, e, 2], 2))
q = poses[:50, :, 3:7]; w,x,y,z = np.moveaxis(q, -1, 0); print("pitch at start mean", np.mean(2*(x*z-w*y)))
