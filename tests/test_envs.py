"""The T-Rex model and the stage-1 env: shapes, jit/vmap, determinism, resets, termination, NaN guard, standing."""

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

import envs
from configs import get_config

STAND_SECONDS = 5.0
BATCH = 4


def test_model_scale_and_conventions():
    mj_model = envs.load_model(get_config("trex_stage1"))
    home = mj_model.keyframe("home")
    assert 80.0 <= mj_model.body_subtreemass[0] <= 90.0
    assert 0.85 <= home.qpos[2] <= 0.95
    assert mj_model.nu == 14 and mj_model.nq == 7 + 14
    for name in ["jaw_tip", "tail_tip"]:
        assert mj_model.site(name).id >= 0
    for kind in (mujoco.mjtGeom.mjGEOM_MESH, mujoco.mjtGeom.mjGEOM_HFIELD, mujoco.mjtGeom.mjGEOM_SDF):
        assert kind not in mj_model.geom_type  # primitive geoms only


def floor_contacts_only(mj_model, data):
    """True when every active contact is between the floor and a foot geom."""
    floor = mj_model.geom("floor").id
    foot_bodies = {mj_model.body(n).id for n in ["l_foot", "l_toes", "r_foot", "r_toes"]}
    for c in data.contact[: data.ncon]:
        other = c.geom2 if c.geom1 == floor else c.geom1 if c.geom2 == floor else None
        if other is None or mj_model.geom_bodyid[other] not in foot_bodies:
            return False
    return True


def test_stands_by_itself_in_mujoco_with_only_foot_contacts():
    mj_model = envs.load_model(get_config("trex_stage1"))
    data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.keyframe("home").id)
    mujoco.mj_forward(mj_model, data)
    start = data.qpos[2]
    worst = 0.0
    for _ in range(int(STAND_SECONDS / mj_model.opt.timestep)):
        mujoco.mj_step(mj_model, data)
        worst = max(worst, abs(data.qpos[2] - start))
        assert floor_contacts_only(mj_model, data)
    assert worst < 0.05
    assert data.ncon > 0  # it stands on its feet, not in the air


def test_stands_by_itself_in_mjx_under_zero_action():
    env = envs.make_env("trex_stage1", reset_joint_noise=0.0, reset_yaw=False, push_interval=0)
    steps = int(STAND_SECONDS / env.config["ctrl_dt"])

    @jax.jit
    def rollout(key):
        state = env.reset(key)

        def body(state, _):
            state = env.step(state, jnp.zeros(env.action_size))
            return state, (state.data.qpos[2], state.terminated | state.truncated)

        return state.data.qpos[2], jax.lax.scan(body, state, None, steps)[1]

    start, (heights, ended) = rollout(jax.random.key(0))
    assert not ended.any()
    assert np.abs(np.asarray(heights) - float(start)).max() < 0.05


def test_shapes_jit_vmap_and_determinism(trex):
    env = trex["env"]
    keys = jax.random.split(jax.random.key(0), BATCH)
    state = trex["vreset"](keys)
    assert state.obs.shape == (BATCH, env.observation_size)
    actions = jax.random.uniform(jax.random.key(1), (BATCH, env.action_size), minval=-1, maxval=1)
    next_state = trex["vstep"](state, actions)
    assert next_state.obs.shape == (BATCH, env.observation_size) and next_state.reward.shape == (BATCH,)
    assert np.isfinite(np.asarray(next_state.obs)).all()
    again = trex["vstep"](trex["vreset"](keys), actions)
    np.testing.assert_array_equal(next_state.obs, again.obs)
    np.testing.assert_array_equal(next_state.reward, again.reward)
    other = trex["vreset"](jax.random.split(jax.random.key(7), BATCH))
    assert not np.allclose(state.obs, other.obs)  # fresh random starts, not one cached state


def test_reset_rests_feet_on_the_floor(trex):
    env = trex["env"]
    state = trex["vreset"](jax.random.split(jax.random.key(3), BATCH))
    mj_model = envs.load_model(env.config)
    mj_model.geom_margin[:] = 0.01  # report contacts up to 1 cm away, to read the gap
    data = mujoco.MjData(mj_model)
    for qpos in np.asarray(state.data.qpos):
        data.qpos[:] = qpos
        mujoco.mj_forward(mj_model, data)
        gap = min(c.dist for c in data.contact[: data.ncon])
        assert abs(gap) < 1e-3  # the lowest foot point touches the floor: no gap, no penetration
        assert floor_contacts_only(mj_model, data)
    yaws = np.asarray(state.data.qpos[:, 6])
    assert np.ptp(yaws) > 0.1  # random headings


def env_batch(trex):
    """BATCH fresh envs, of which the tests edit the first: every test reuses one compiled reset and step."""
    return trex["vreset"](jax.random.split(jax.random.key(0), BATCH))


def step_zero(trex, state):
    return trex["vstep"](state, jnp.zeros((BATCH, trex["env"].action_size)))


def test_time_limit_truncates_and_auto_resets(trex):
    state = env_batch(trex)
    state = state.replace(time=jnp.full(BATCH, trex["env"].config["episode_length"] - 1))
    state = step_zero(trex, state)
    assert bool(state.truncated[0]) and not bool(state.terminated[0])
    assert int(state.time[0]) == 0
    assert not np.allclose(state.final_obs, state.obs)  # the pre-reset observation is kept for bootstrapping
    assert float(state.info["reward/termination"][0]) == 0.0


def test_low_torso_terminates_with_penalty(trex):
    state = env_batch(trex)
    state = state.replace(data=state.data.replace(qpos=state.data.qpos.at[0, 2].set(0.3)))
    state = step_zero(trex, state)
    assert bool(state.terminated[0]) and not bool(state.truncated[0])
    assert float(state.info["reward/termination"][0]) == trex["env"].config["reward_weights"]["termination"]
    assert int(state.time[0]) == 0 and float(state.data.qpos[0, 2]) > 0.8  # reset to a standing start


def test_tilt_terminates(trex):
    state = env_batch(trex)
    tilted = jnp.array([np.cos(0.5), np.sin(0.5), 0.0, 0.0])  # 1 rad roll, past max_tilt = 0.7
    state = state.replace(data=state.data.replace(qpos=state.data.qpos.at[0, 3:7].set(tilted)))
    assert bool(step_zero(trex, state).terminated[0])


def test_non_finite_physics_is_reset_and_counted(trex):
    state = env_batch(trex)
    state = state.replace(data=state.data.replace(qvel=state.data.qvel.at[0, 8].set(jnp.nan)))
    state = step_zero(trex, state)
    assert bool(state.terminated[0]) and float(state.info["nan_reset"][0]) == 1.0
    for x in (state.obs, state.final_obs, state.reward, state.data.qpos, state.data.qvel):
        assert np.isfinite(np.asarray(x)).all()
