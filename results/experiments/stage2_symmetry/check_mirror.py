"""Is tasks.mirror the body's reflection? The observation of a reflected state against the reflected observation, and
20 control steps of plain MuJoCo from a state and from its reflection under reflected actions."""
import sys
import mujoco
import numpy as np

sys.path.insert(0, ".")
import tasks
from configs import get_config

QUAT_SIGN = np.array([1, -1, 1, -1])  # reflection through x-z: rotation axis (-x, y, -z)


def reflect_state(m, d, joint_index, joint_sign):
    q, v = d.qpos.copy(), d.qvel.copy()
    q[:3] *= [1, -1, 1]
    q[3:7] *= QUAT_SIGN
    q[7:] = (d.qpos[7:] - 0)[joint_index] * joint_sign
    v[:3] *= [1, -1, 1]
    v[3:6] *= [-1, 1, -1]
    v[6:] = d.qvel[6:][joint_index] * joint_sign
    out = mujoco.MjData(m)
    out.qpos[:], out.qvel[:] = q, v
    out.userdata[:] = d.userdata * np.r_[[1, -1, -1], -np.ones(len(d.userdata) - 3)]
    mujoco.mj_forward(m, out)
    return out


for name in sys.argv[1:]:
    config = get_config(name, dict(symmetry_augmentation=True))
    m = tasks.load_model(config)
    body = tasks.legged_body(config, m, np)
    mir = tasks.mirror(config, m)
    rng = np.random.default_rng(0)
    joints = [m.joint(i).name for i in range(1, m.njnt)]
    joint_index, joint_sign = tasks.mirrored_names(joints)
    home_gap = np.abs(body.qpos_home[7:][joint_index] * joint_sign - body.qpos_home[7:]).max()
    d = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, d, m.keyframe("home").id)
    d.qpos[7:] += rng.uniform(-0.2, 0.2, m.nq - 7)
    d.qvel[:] = rng.normal(0, 0.5, m.nv)
    d.qpos[3:7] = tasks.rotate_yaw(np, 0.7, d.qpos[3:7])
    d.userdata[:3] = [0.8, 0.2, 0.4]
    mujoco.mj_forward(m, d)
    e = reflect_state(m, d, joint_index, joint_sign)
    a = rng.uniform(-1, 1, m.nu)
    obs, obs_e = tasks.observe(body, d, a), tasks.observe(body, e, a[mir.action_index] * mir.action_sign)
    print(name, "home asymmetry", home_gap, "obs gap", np.abs(obs[mir.obs_index] * mir.obs_sign - obs_e).max())
    for group in tasks.observation_layout(config, m):
        gap = np.abs((obs[mir.obs_index] * mir.obs_sign - obs_e)[group["start"]:group["stop"]]).max()
        if gap > 1e-5:
            print("  ", group["name"], gap)
    # dynamics: home state, random actions, both bodies
    mujoco.mj_resetDataKeyframe(m, d, m.keyframe("home").id)
    d.qpos[3:7] = tasks.rotate_yaw(np, 0.3, d.qpos[3:7])
    mujoco.mj_forward(m, d)
    e = reflect_state(m, d, joint_index, joint_sign)
    for t in range(20):
        a = rng.uniform(-0.5, 0.5, m.nu)
        d.ctrl[:] = tasks.action_to_ctrl(body, a)
        e.ctrl[:] = tasks.action_to_ctrl(body, a[mir.action_index] * mir.action_sign)
        for _ in range(5):
            mujoco.mj_step(m, d)
            mujoco.mj_step(m, e)
        o, oe = tasks.observe(body, d, a), tasks.observe(body, e, a[mir.action_index] * mir.action_sign)
        if t in (0, 4, 9, 19):
            print("  step", t + 1, "obs gap", np.abs(o[mir.obs_index] * mir.obs_sign - oe).max(),
                  "pelvis y", d.qpos[1], e.qpos[1])
