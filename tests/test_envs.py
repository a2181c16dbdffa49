"""The stage-1 env on the T-Rex: shapes, jit/vmap, determinism, resets, termination, NaN guard."""

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

import pytest

import envs
import tasks
from test_species import floor_contacts_only

BATCH = 4


@pytest.fixture(scope="module")
def trex():
    """The T-Rex stage-1 env with jitted batched reset/step, compiled once for every test here."""
    env = envs.make_env("trex_stage1")
    return dict(env=env, vreset=jax.jit(jax.vmap(env.reset)), vstep=jax.jit(jax.vmap(env.step)))


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
    mj_model = tasks.load_model(env.config)
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
    state = state.replace(time=jnp.full(BATCH, trex["env"].config["episode_length"] - 1, jnp.int32))  # as step's
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


def test_reset_and_step_give_states_of_the_same_types(trex):
    """Same shapes, dtypes and weak types from reset and from step: a jitted function fed both compiles once."""
    env = trex["env"]
    reset = jax.eval_shape(env.reset, jax.random.key(0))
    step = jax.eval_shape(env.step, reset, jnp.zeros(env.action_size))
    describe = lambda tree: jax.tree.map(lambda x: (x.shape, x.dtype, x.weak_type), tree)
    assert describe(step) == describe(reset)
