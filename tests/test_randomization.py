"""Domain randomization and randomized pushes (randomization.py, envs.py): draws per env and per episode within their
ranges, pushes within theirs, the model fields the draws change, delayed and offset controls, and MJX against plain
MuJoCo under the same draws."""

import types

import jax
import mujoco
import numpy as np
import pytest

import critic
import envs
import evaluation
import play
import randomization
import tasks
from benchmarks.play_vs_evaluate import env_draws
from configs import get_config

ENVS, STEPS, EPISODE = 8, 24, 6  # 4 episodes per env
PUSH_SPEED, PUSH_INTERVAL = (0.2, 0.5), (2, 3)


@pytest.fixture(scope="module")
def rollout():
    """The T-Rex stage-1 env with its default randomization, ranged pushes, short episodes and a privileged critic:
    random actions for STEPS steps in ENVS envs, keeping every step's state; compiled once for the tests here."""
    env = envs.make_env("trex_stage1", episode_length=EPISODE, push_speed=PUSH_SPEED, push_interval=PUSH_INTERVAL,
                        privileged_critic=True)

    @jax.jit
    def run(key):
        state = jax.vmap(env.reset)(jax.random.split(key, ENVS))

        def step(state, action_key):
            actions = jax.random.uniform(action_key, (ENVS, env.action_size), minval=-1.0, maxval=1.0)
            after = jax.vmap(env.step)(state, actions)
            return after, (state, actions, after)

        return state, jax.lax.scan(step, state, jax.random.split(jax.random.fold_in(key, 1), STEPS))[1]

    first, (before, actions, after) = jax.device_get(run(jax.random.key(0)))
    return env, first, before, actions, after


def test_draws_stay_in_their_ranges_and_differ_per_env_and_per_episode(rollout):
    env, first, before, _, after = rollout
    ranges = randomization.ranges(env.config)
    assert set(ranges) <= set(first.episode)
    ended = after.terminated | after.truncated
    assert ended.sum() >= ENVS * 3  # every env began new episodes
    for name, (low, high) in ranges.items():
        draws = after.episode[name]
        assert draws.min() >= low and draws.max() <= high, name
        if name == "action_delay":  # whole steps: both occur
            assert set(np.unique(draws)) == {0, 1}
            continue
        assert len(np.unique(first.episode[name].reshape(ENVS, -1)[:, 0])) == ENVS, name  # per env
        last, next = (x[ended].reshape(ended.sum(), -1) for x in (before.episode[name], after.episode[name]))
        assert not np.any(np.all(last == next, axis=-1)), name  # each new episode draws afresh


def test_pushes_stay_in_their_ranges(rollout):
    _, _, before, _, after = rollout
    speeds = after.info["push_speed"]
    pushed = speeds > 0
    assert pushed.sum() >= ENVS * 4
    np.testing.assert_array_equal(pushed, before.time == before.episode["next_push"])  # when due, never else
    assert speeds[pushed].min() >= PUSH_SPEED[0] and speeds[pushed].max() <= PUSH_SPEED[1]
    ended = after.terminated | after.truncated
    waits = np.concatenate([(after.episode["next_push"] - before.time)[pushed & ~ended],  # from a push
                            after.episode["next_push"][ended]])  # from a new episode's start
    assert set(np.unique(waits)) == set(range(PUSH_INTERVAL[0], PUSH_INTERVAL[1] + 1))


def test_controls_are_delayed_and_offset_as_drawn(rollout):
    env, _, before, actions, after = rollout
    body = tasks.legged_body(env.config, env.mj_model, np)
    ongoing = ~(after.terminated | after.truncated)
    previous = np.concatenate([np.zeros_like(actions[:1]), actions[:-1]])
    previous = np.where((before.time == 0)[..., None], 0.0, previous)  # an episode's first step has no previous one
    delayed = np.where((before.episode["action_delay"] == 1)[..., None], previous, actions)
    expected = tasks.action_to_ctrl(body, delayed) + before.episode["home_offset"]
    np.testing.assert_allclose(after.data.ctrl[ongoing], expected[ongoing], atol=1e-5)


def test_observation_noise_stays_in_its_amplitude(rollout):
    env, first, *_ = rollout
    noise = env.config["randomize"]["obs_noise"]
    height = first.obs[:, 3] - first.data.qpos[:, 2]  # the pelvis_height group, after the 3 of gravity
    home = env.mj_model.keyframe("home").qpos[7:]
    joints = first.obs[:, 10:10 + len(home)] - (first.data.qpos[:, 7:] - home)  # after gravity, height, velocities
    assert np.abs(height).max() <= noise["pelvis_height"] + 1e-6 and np.abs(height).max() > 0
    assert np.abs(joints).max() <= noise["joint_angles"] + 1e-6 and np.abs(joints).std() > noise["joint_angles"] / 4


def test_model_values_are_the_draws_applied_to_the_nominal_model():
    config = get_config("velociraptor_stage1")
    mj_model = tasks.load_model(config)
    active = randomization.ranges(config)
    fields, where = randomization.nominal(mj_model, active, "pelvis")
    rng = np.random.default_rng(0)
    episode = randomization.draw(active, randomization.draw_shapes(mj_model),
                                 lambda shape, low, high: rng.uniform(low, high, shape), np)
    values = randomization.model_values(fields, where, episode, np)
    colliding = [i for i in range(mj_model.ngeom) if mj_model.geom_contype[i] or mj_model.geom_conaffinity[i]]
    assert np.all(values["geom_friction"][colliding, 0] == episode["friction"])
    np.testing.assert_array_equal(values["geom_friction"][:, 1:], mj_model.geom_friction[:, 1:].astype(np.float32))
    pelvis = mj_model.body("pelvis").id
    mass = mj_model.body_mass * episode["body_mass"]
    mass[pelvis] += episode["payload"]
    np.testing.assert_allclose(values["body_mass"], mass, rtol=1e-6)
    np.testing.assert_allclose(values["body_inertia"][pelvis], mj_model.body_inertia[pelvis] * mass[pelvis]
                               / mj_model.body_mass[pelvis], rtol=1e-5)
    np.testing.assert_allclose(values["actuator_gainprm"][:, 0], mj_model.actuator_gainprm[:, 0] * episode["kp"])
    np.testing.assert_allclose(values["actuator_biasprm"][:, 1], mj_model.actuator_biasprm[:, 1] * episode["kp"])
    np.testing.assert_allclose(values["dof_damping"], mj_model.dof_damping * episode["damping"], rtol=1e-6)
    np.testing.assert_allclose(values["dof_armature"], mj_model.dof_armature * episode["armature"], rtol=1e-6)


NEUTRAL = {f"randomize.{name}": value for name, value in dict(friction=1.0, body_mass=1.0, payload=0.0, kp=1.0,
                                                               damping=1.0, armature=1.0, home_offset=0.0,
                                                               action_delay=0).items()}


def zero_action_heights(physics, overrides=()):
    """(episodes, pelvis heights) of 3 zero-action episodes of 2 s without pushes, randomization on (the same draws
    and starts in either physics)."""
    env = envs.make_env("trex_stage1", physics, episode_length=100, push_interval=0, **dict(overrides))
    episodes, poses = evaluation.evaluate(env, evaluation.zero_policy(env), jax.random.key(0), 3)
    return episodes, poses[:, :, 2]


def test_mjx_and_plain_mujoco_agree_under_the_same_draws():
    """MJX and plain MuJoCo step the same randomized models from the same starts to nearly the same heights, as
    the nominal models do (tests/test_species.py); with every range fixed at its nominal value they end elsewhere."""
    (mjx_episodes, mjx_heights), (mujoco_episodes, mujoco_heights) = map(zero_action_heights, ("mjx", "mujoco"))
    np.testing.assert_array_equal(mjx_episodes["episode_length"], mujoco_episodes["episode_length"])
    assert np.all(mjx_episodes["reached_time_limit"])
    np.testing.assert_allclose(mjx_heights[-1], mujoco_heights[-1], atol=0.01)
    _, nominal_heights = zero_action_heights("mjx", NEUTRAL)
    np.testing.assert_array_equal(nominal_heights[0], mjx_heights[0])  # the same starts
    assert np.abs(nominal_heights[-1] - mjx_heights[-1]).max() > 2e-3


def test_play_pushes_within_the_ranges_as_the_env_does():
    """The pushes play.py makes (randomization.push on NumPy, no JAX) for push ranges: due after waits in the interval
    range, at speeds in the speed range, each kick of that speed; a fixed push keeps its fixed schedule."""
    mj_model = tasks.load_model(get_config("trex_stage1"))
    draws = play.numpy_draws(np.random.default_rng(0))

    def speeds(push_interval, push_speed, steps):
        plan = randomization.plan(dict(push_interval=push_interval, push_speed=push_speed), mj_model)
        episode, speeds = randomization.start_episode(plan, mj_model.nu, draws.episode, np), []
        for time_step in range(steps):
            kick, speed, episode = randomization.push(plan, time_step, episode, draws.push(time_step), np)
            assert np.linalg.norm(kick) == pytest.approx(speed)
            speeds.append(float(speed))
        return np.array(speeds)

    ranged = speeds(PUSH_INTERVAL, PUSH_SPEED, 300)
    due = np.flatnonzero(ranged)
    assert len(due) >= 300 // PUSH_INTERVAL[1]
    assert set(np.diff(np.concatenate([[0], due]))) == set(range(PUSH_INTERVAL[0], PUSH_INTERVAL[1] + 1))
    assert ranged[due].min() >= PUSH_SPEED[0] and ranged[due].max() <= PUSH_SPEED[1]
    fixed = speeds(50, 0.4, 160)
    assert list(np.flatnonzero(fixed)) == [50, 100, 150] and fixed[100] == pytest.approx(0.4)


def test_the_critic_observes_the_clean_observation_the_draws_the_push_and_the_body(rollout):
    """The privileged critic's observation, group by group (critic.CRITIC_GROUPS), of every state: the policy's
    observation without its noise, the episode's draws, the wait for the next push and the last kick, the root's
    velocity and the feet's touch sensors; `final_critic_obs` that of the state before an auto-reset."""
    env, first, before, _, after = rollout
    plan, size = randomization.plan(env.config, env.mj_model), env.observation_size
    body = tasks.legged_body(env.config, env.mj_model, np)
    draws = np.concatenate([after.episode[name].reshape(STEPS, ENVS, -1) for name in plan.ranges], -1)
    push = np.concatenate([(after.episode["next_push"] - after.time)[..., None], after.episode["last_kick"]], -1)
    own = np.concatenate([after.data.qvel[..., :3], after.data.sensordata[..., body.touch_adr]], -1)
    layout = [size, draws.shape[-1], 3, own.shape[-1]]
    assert after.critic_obs.shape[-1] == env.critic_observation_size == sum(layout)
    clean, drawn, pushed, state = np.split(after.critic_obs, np.cumsum(layout)[:-1], axis=-1)
    noise = after.obs - clean
    assert np.all(np.abs(noise) <= plan.noise + 1e-5) and np.abs(noise).max() > 0.5 * plan.noise.max()
    np.testing.assert_array_equal(drawn, draws)
    np.testing.assert_array_equal(pushed, push)
    np.testing.assert_allclose(state, own, rtol=1e-6)
    speeds, kicks = after.info["push_speed"], after.episode["last_kick"]
    ended = after.terminated | after.truncated
    due = (speeds > 0) & ~ended
    np.testing.assert_allclose(np.linalg.norm(kicks[due], axis=-1), speeds[due], rtol=1e-5)
    np.testing.assert_array_equal(kicks[~due & ~ended], before.episode["last_kick"][~due & ~ended])
    np.testing.assert_array_equal(after.final_critic_obs[~ended], after.critic_obs[~ended])
    assert not np.any(np.all(after.final_critic_obs[ended] == after.critic_obs[ended], axis=-1))  # the old episode's
    assert np.all(after.critic_obs[ended][:, size + draws.shape[-1] + 1:][:, :2] == 0)  # a new episode: no kick yet


def test_the_critic_of_a_stage_with_commands_observes_the_wait_for_the_next_one():
    """After the groups before it, the control steps from `time` until the episode's next command draw; a stage
    without commands has no such group."""
    plan, task = types.SimpleNamespace(ranges=(), push_interval=0), types.SimpleNamespace(privileged=None)
    clean = np.arange(4, dtype=np.float32)
    seen = critic.critic_observation(plan, task, None, clean, dict(next_command=np.int32(250)), np.int32(40))
    np.testing.assert_array_equal(seen, [0, 1, 2, 3, 210])
    np.testing.assert_array_equal(critic.critic_observation(plan, task, None, clean, {}, np.int32(40)), clean)


def test_play_resets_with_the_draws_of_the_env(rollout):
    """play.py's reset (NumPy, no JAX) under the env's own random stream (play_vs_evaluate.env_draws, which replays
    envs.py's key splits): the same draws, recent actions and first push as the env's reset, written into its model
    as model_values has them, and the same first observation, its noise included (the start state itself differs by
    float32 against float64 arithmetic)."""
    env, first, *_ = rollout
    exported = play.exported_policy({}, env.config, tasks.load_model(env.config), None)
    draws, data = env_draws(exported, 0, ENVS), mujoco.MjData(exported.mj_model)
    for i in range(ENVS):
        obs, episode = play.reset(exported, data, draws(i))
        drawn = {name: value[i] for name, value in first.episode.items() if name != "last_kick"}  # the critic's
        assert set(episode) == set(drawn)
        for name, value in drawn.items():
            np.testing.assert_allclose(episode[name], value, rtol=1e-6, atol=0, err_msg=name)
        for field, value in randomization.model_values(exported.plan.fields, exported.plan.where, drawn, np).items():
            np.testing.assert_allclose(getattr(exported.mj_model, field), value, rtol=1e-6, atol=0, err_msg=field)
        np.testing.assert_allclose(obs, first.obs[i], rtol=0, atol=1e-4)
