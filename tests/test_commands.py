"""Velocity commands: draws and redraws against their settings, the command the env holds in its observation, the
tracking rewards and errors against a NumPy reference, play.py's held command and steering keys, and gates with upper
bounds."""

import dataclasses

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

import commands
import curriculum
import envs
import play
import rendering
import tasks
from benchmarks.play_vs_evaluate import env_draws
from configs import get_config
from mujoco import mjx


def test_the_commanded_velocity_turns_with_the_heading():
    np.testing.assert_allclose(commands.world_velocity(np.array([0.0, 1.0]), [1.0, 0.5, 0.3]), [-0.5, 1.0])
    np.testing.assert_allclose(commands.world_velocity(np.array([0.6, -0.8]), [2.0, 0.0, 0.0]), [1.2, -1.6])


def moving_draws(schedule, uniform):
    """4000 commands drawn with `uniform`, checked against the settings (the standing share within 3 sd of its 0.1,
    every moving command within its ranges); returns the moving ones."""
    drawn = np.array([commands.draw(schedule, uniform, np) for _ in range(4000)])
    standing = np.all(drawn == 0, axis=1)
    assert abs(standing.mean() - schedule.standing_share) < 3 * np.sqrt(0.1 * 0.9 / 4000)
    moving = drawn[~standing]
    assert np.all(moving >= schedule.low) and np.all(moving <= schedule.high)
    return moving


def test_draws_and_redraws_follow_the_settings():
    """commands.start and commands.update on NumPy: every command within its ranges, the standing share, and a fresh
    command exactly when one is due, after a wait drawn from the interval."""
    schedule = commands.schedule(get_config("trex_stage2"))
    rng = np.random.default_rng(0)
    uniform = lambda shape, low, high: rng.uniform(low, high, size=shape)  # noqa: E731
    moving = moving_draws(schedule, uniform)
    assert np.all(moving.min(0) < schedule.low + 0.05) and np.all(moving.max(0) > schedule.high - 0.05)
    command, next_draw = commands.start(schedule, uniform, np)
    changes, waits = [], [int(next_draw)]
    for time in range(3000):
        fresh, following = commands.update(schedule, time, command, next_draw, uniform, np)
        if time == next_draw:
            changes.append(time)
            waits.append(int(following) - time)
        else:
            assert following == next_draw and np.array_equal(fresh, command)
        command, next_draw = fresh, following
    low, high = schedule.interval
    assert len(changes) >= 3000 // high and min(waits) >= low and max(waits) <= high
    assert len(set(waits)) > 3


def test_a_backward_share_tells_that_share_of_moving_draws_to_walk_backward():
    """With backward_share 0.5 on the T-Rex's -0.5-2.5 m/s, a moving draw walks backward half the time plus the uniform
    draw's sixth of the other half; the other ranges and the standing share are as without it."""
    schedule = commands.schedule(get_config("trex_stage2", {"command.backward_share": 0.5}))
    rng = np.random.default_rng(0)
    uniform = lambda shape, low, high: rng.uniform(low, high, size=shape)  # noqa: E731
    moving = moving_draws(schedule, uniform)
    backward = 0.5 + 0.5 * 0.5 / 3.0
    assert abs(np.mean(moving[:, 0] < 0) - backward) < 3 * np.sqrt(backward * (1 - backward) / len(moving))
    assert moving[:, 0].max() > 2.4 and moving[:, 0].min() < -0.45
    uniform_draws = commands.schedule(get_config("trex_stage2", {"command.backward_share": 0.0}))
    assert commands.draws(schedule) == 5 and commands.draws(uniform_draws) == 3


def test_a_held_command_is_drawn_at_reset_and_never_again():
    held = commands.held([1.0, -0.2, 0.5])
    uniform = lambda shape, low, high: np.random.default_rng(1).uniform(low, high, size=shape)  # noqa: E731
    command, next_draw = commands.start(held, uniform, np)
    np.testing.assert_allclose(command, [1.0, -0.2, 0.5], rtol=1e-6)
    assert next_draw == commands.NEVER


@pytest.fixture(scope="module")
def trex_stage2():
    """The T-Rex's stage-2 env without randomization, 256 fresh starts and one step of each with a redraw due."""
    env = envs.make_env("trex_stage2", **{"randomize.enabled": False})
    keys = jax.random.split(jax.random.key(0), 256)

    @jax.jit
    def start_and_redraw(keys):
        first = jax.vmap(env.reset)(keys)
        due = first.replace(episode=first.episode | dict(next_command=first.time))
        return first, jax.vmap(env.step)(due, jnp.zeros((256, env.action_size)))

    return env, *jax.device_get(start_and_redraw(keys))


def command_group(env):
    layout = {g["name"]: g for g in tasks.observation_layout(env.config, env.mj_model)}
    return slice(layout["command"]["start"], layout["command"]["stop"])


def test_the_env_draws_a_command_at_reset_observes_it_and_redraws_it_when_due(trex_stage2):
    env, first, stepped = trex_stage2
    schedule = commands.schedule(env.config)
    command = first.data.userdata
    assert command.shape == (256, commands.SIZE)
    assert np.all(command >= schedule.low) and np.all(command <= schedule.high)
    assert 5 <= np.sum(np.all(command == 0, axis=1)) <= 50  # standing share 0.1 of 256
    low, high = schedule.interval
    assert np.all((first.episode["next_command"] >= low) & (first.episode["next_command"] <= high))
    np.testing.assert_array_equal(first.obs[:, command_group(env)], command)  # no noise: the command as held
    live = ~(stepped.terminated | stepped.truncated)
    redrawn = stepped.data.userdata[live]
    assert live.sum() > 200 and np.mean(np.any(redrawn != command[live], axis=1)) > 0.85
    np.testing.assert_array_equal(stepped.obs[live][:, command_group(env)], redrawn)
    assert np.all((stepped.episode["next_command"][live] >= low) & (stepped.episode["next_command"][live] <= high))


def test_play_draws_the_commands_of_the_env(trex_stage2):
    """play.py's reset under the env's own random stream (play_vs_evaluate.env_draws) holds the command and the next
    draw the env's reset drew, with the T-Rex's backward share (5 draws a command and its wait, not 3)."""
    env, first, _ = trex_stage2
    exported = play.exported_policy({}, env.config, tasks.load_model(env.config), None)
    assert exported.schedule.backward_share > 0
    draws, data = env_draws(exported, 0, 256), mujoco.MjData(exported.mj_model)
    for i in range(16):
        _, episode = play.reset(exported, data, draws(i))
        np.testing.assert_allclose(data.userdata, first.data.userdata[i], rtol=1e-6, atol=0)
        assert episode["next_command"] == first.episode["next_command"][i]


def test_stages_without_commands_observe_zero_and_policies_from_before_commands_observe_none():
    env = envs.make_env("trex_stage1", **{"randomize.enabled": False})
    state = jax.jit(env.reset)(jax.random.key(0))
    assert np.all(np.asarray(state.obs)[command_group(env)] == 0)
    before = envs.make_env("trex_stage1", **{"randomize.enabled": False, "observe_command": False})
    assert before.observation_size == env.observation_size - commands.SIZE


def heading_reference(yaw, world_velocity, world_yaw_rate, command, sigma):
    """NumPy reference of the tracking rewards and errors for a body heading `yaw` with the given world velocity."""
    ahead, left = np.array([np.cos(yaw), np.sin(yaw)]), np.array([-np.sin(yaw), np.cos(yaw)])
    velocity = np.array([ahead @ world_velocity, left @ world_velocity])
    error, yaw_error = velocity - command[:2], world_yaw_rate - command[2]
    speed = np.linalg.norm(command[:2])
    along = velocity @ command[:2] / speed if speed > 0 else 0.0
    turn = world_yaw_rate * np.sign(command[2])
    return dict(tracking_lin_vel=np.exp(-(error @ error) / sigma), tracking_yaw_rate=np.exp(-yaw_error ** 2 / sigma),
                tracking_lin_vel_linear=max(0.0, 1.0 - np.linalg.norm(error)),  # per 1 m/s, never below 0
                tracking_yaw_rate_linear=max(0.0, 1.0 - abs(yaw_error)),  # per 1 rad/s
                command_speed=min(along, speed), command_turn=min(turn, abs(command[2])),
                lin_vel_error=np.linalg.norm(error), yaw_rate_error=abs(yaw_error))


@pytest.mark.parametrize("yaw, velocity, yaw_rate, command", [
    (0.0, [1.0, 0.0], 0.0, [1.0, 0.0, 0.0]),
    (0.7, [0.3, 1.2], 0.4, [1.5, 0.2, -0.3]),
    (-2.5, [-0.5, 0.4], -0.9, [0.0, 0.0, 0.0]),
    (2.0, [0.1, 0.0], -0.9, [0.0, 0.0, -0.5]),  # turning faster than commanded: command_turn capped
    (0.3, [0.1, 0.0], 0.6, [0.0, 0.0, -0.5]),  # turning the wrong way: command_turn negative
    (1.2, [2.0, -1.0], 0.0, [0.5, -0.5, 0.0]),  # faster than commanded: command_speed capped
])
def test_tracking_rewards_and_errors_against_numpy(yaw, velocity, yaw_rate, command):
    """The velocity task on a plain MjData (NumPy): the home pose turned by `yaw`, moving with a world velocity and
    yaw rate, commanded `command`."""
    config = get_config("trex_stage2")
    mj_model = tasks.load_model(config)
    task = tasks.TASKS["velocity"](config, mj_model, np)
    data = mujoco.MjData(mj_model)
    qpos = np.array(mj_model.keyframe("home").qpos)
    qpos[3:7] = tasks.rotate_yaw(np, yaw, qpos[3:7])
    data.qpos[:] = qpos
    mujoco.mj_kinematics(mj_model, data)
    rotation = data.xmat[mj_model.body("pelvis").id].reshape(3, 3)
    data.qvel[:2] = velocity
    data.qvel[3:6] = rotation.T @ [0.0, 0.0, yaw_rate]  # the free root's angular velocity is in its own frame
    data.userdata[:] = command
    mujoco.mj_forward(mj_model, data)
    zero = np.zeros(mj_model.nu)
    got = task.reward_terms(data, zero, zero) | task.measure(data)
    # the home pelvis faces +x, pitched or not: its heading turns with `yaw`
    expected = heading_reference(yaw, np.array(velocity), yaw_rate, np.array(command), config["tracking_sigma"])
    for name, value in expected.items():
        assert float(got[name]) == pytest.approx(value, rel=1e-5, abs=1e-6), name  # the 1e-6 guards of unit vectors
    assert float(got["ang_vel"]) == pytest.approx(0.0, abs=1e-9)  # turning is commanded, not penalized


def mjx_data(env, state):
    return mjx.get_data(env.mj_model, jax.device_get(state.data))


class ZeroPolicy:
    """An onnxruntime session's `run` that always answers action 0."""

    def __init__(self, nu):
        self.nu = nu

    def run(self, names, feeds):
        return [np.zeros((1, self.nu), np.float32)]


HEADING_CHECK = {"randomize.enabled": False, "push_interval": 0, "observe_heading": True, "command.forward": (0.0, 0.0),
                 "command.lateral": (0.0, 0.0), "command.yaw_rate": (-1.0, -1.0), "command.standing_share": 0.0,
                 "command.interval": (120, 120)}  # turn right at 1 rad/s, drawn afresh every 120 steps


def check_heading_errors(errors, headings, limit):
    """The heading errors observed after each control step of a body commanded to turn right at 1 rad/s
    (HEADING_CHECK) against a NumPy integral: each step adds the command's turn less the body's, within `limit`, and
    the redraw at control step 120 starts it afresh. The standing body falls behind until the limit holds it."""
    turns = np.angle(np.exp(1j * np.diff(headings)))
    expected = [0.0]
    for step, turn in enumerate(turns):
        carried = 0.0 if step == 120 else expected[-1]
        expected.append(np.clip(carried - 0.02 - turn, -limit, limit))
    np.testing.assert_allclose(errors, expected, rtol=0, atol=2e-4)
    assert np.sum(errors[60:121] == -limit) > 40 and errors[121] > -0.1


def test_the_heading_error_integrates_the_yaw_rate_command_from_each_draw_in_the_env_and_in_play():
    """With observe_heading the env (MJX) and play.py (NumPy) observe the heading reference less the heading: the
    commanded yaw rate integrated since the command was drawn, held within HEADING_ERROR_LIMIT; tracking_heading pays
    exp(-error^2 / tracking_sigma); 0 in stages without commands; and no such input without observe_heading."""
    env = envs.make_env("velociraptor_stage2", **HEADING_CHECK)
    layout = {g["name"]: g for g in tasks.observation_layout(env.config, env.mj_model)}
    at = layout["heading_error"]["start"]
    body = tasks.legged_body(env.config, env.mj_model, np)
    step, state = jax.jit(env.step), jax.jit(env.reset)(jax.random.key(0))
    errors, headings = [], []
    for _ in range(140):
        errors.append(float(state.obs[at]))
        headings.append(float(tasks.heading(body, mjx_data(env, state))))
        state = step(state, jnp.zeros(env.action_size))
    assert not np.any(state.terminated)
    check_heading_errors(np.array(errors), np.array(headings), tasks.HEADING_ERROR_LIMIT)

    exported = play.exported_policy(dict(env="velociraptor_stage2", checkpoint=dict(update=0)), env.config,
                                    env.mj_model, ZeroPolicy(env.mj_model.nu))
    draws, data = play.numpy_draws(np.random.default_rng(0)), mujoco.MjData(env.mj_model)
    (obs, episode), errors, headings = play.reset(exported, data, draws), [], []
    for time_step in range(140):
        errors.append(obs[at])
        headings.append(tasks.heading(exported.body, data))
        episode, _ = play.control_step(exported, data, np.zeros(env.mj_model.nu), draws, time_step, episode)
        obs = play.observe(exported, data, np.zeros(env.mj_model.nu), None)
    check_heading_errors(np.array(errors), np.array(headings), tasks.HEADING_ERROR_LIMIT)
    heading, turn = tasks.heading(exported.body, data), np.array([0.0, 0.0, 0.5])
    data.userdata[commands.SIZE] = heading - 2.5  # far behind: the reference is carried at the limit, no further
    for fresh, steps, reference in [(False, 1, heading - 1.0 + 0.01), (True, 1, heading + 0.01), (True, 0, heading)]:
        held = exported.task.hold_command(data, turn, fresh, steps)
        np.testing.assert_allclose(held, [*turn, reference], rtol=0, atol=1e-9)
    data.userdata[commands.SIZE] = heading + 0.4  # 0.4 rad to turn left: the heading reward falls off as tracking's
    zero = np.zeros(env.mj_model.nu)
    assert exported.task.reward_terms(data, zero, zero)["tracking_heading"] == pytest.approx(np.exp(-0.16 / 0.25))

    config = get_config("velociraptor_stage1", dict(observe_heading=True))
    mj_model = tasks.load_model(config)
    data = mujoco.MjData(mj_model)
    data.userdata[:] = 1.0
    mujoco.mj_forward(mj_model, data)
    groups = tasks.observation_groups(tasks.legged_body(config, mj_model, np), data, np.zeros(mj_model.nu))
    assert groups["heading_error"].tolist() == [0.0]  # stage 1 has no commands to integrate
    assert "heading_error" not in {g["name"] for g in tasks.observation_layout(get_config("velociraptor_stage2"),
                                                                                env.mj_model)}


def test_play_holds_a_command_and_measures_its_tracking():
    """play.py's --command on a stage-2 policy that stands still (the nominal T-Rex holds its home pose): it tracks a
    held 1 m/s forward command with an error of 1 m/s and a held turn with an error of the turn rate, to the limit."""
    config = get_config("trex_stage2", {"push_interval": 0, "randomize.enabled": False})
    mj_model = tasks.load_model(config)
    exported = play.exported_policy(dict(env="trex_stage2", checkpoint=dict(update=0)), config, mj_model,
                                    ZeroPolicy(mj_model.nu))
    summary, _ = play.play_episodes(play.holding(exported, play.parse_command("1.0,0,0.5")), 1, seed=0)
    assert summary["reached_time_limit"] == 1.0
    assert summary["lin_vel_error_mean"] == pytest.approx(1.0, abs=0.02)
    assert summary["yaw_rate_error_mean"] == pytest.approx(0.5, abs=0.02)
    with pytest.raises(play.ConfigError, match="follows no velocity commands"):
        play.holding(dataclasses.replace(exported, schedule=None), [1.0, 0.0, 0.0])
    with pytest.raises(play.ConfigError, match="three numbers VX,VY,YAW"):
        play.parse_command("1.0,0")


def test_videos_draw_the_command_held_in_the_recorded_poses():
    """play.py's recorded poses carry the command; the command overlay draws it as a green arrow (none when standing)
    and captions it."""
    config = get_config("trex_stage2", {"push_interval": 0, "randomize.enabled": False, "episode_length": 3})
    mj_model = tasks.load_model(config)
    exported = play.exported_policy(dict(env="trex_stage2", checkpoint=dict(update=0)), config, mj_model,
                                    ZeroPolicy(mj_model.nu))
    overlay = rendering.command_overlay(exported.body)
    frames = {}
    for command in ("1.5,0,0", "0,0,0"):
        _, films = play.play_episodes(play.holding(exported, play.parse_command(command)), 1, seed=0, film=1)
        pose = films[0][-1]
        assert pose.shape == (mj_model.nq + 3 * mj_model.nmocap + commands.SIZE,)
        np.testing.assert_array_equal(pose[-commands.SIZE:], play.parse_command(command))
        frames[command] = [rendering.render_frames(mj_model, pose[None], 160, 120, "track", drawn)[0]
                           for drawn in (None, overlay)]
    green = lambda frame: np.sum((frame[..., 1] > frame[..., 0] + 60.0) & (frame[..., 1] > frame[..., 2] + 60.0))  # noqa
    plain, drawn = frames["1.5,0,0"]
    assert green(drawn) > green(plain) + 50
    assert np.any(drawn[:14] != plain[:14])  # the caption band
    plain, drawn = frames["0,0,0"]
    assert green(drawn) == green(plain) and np.any(drawn[:14] != plain[:14])


def test_keys_change_the_command():
    command = np.zeros(commands.SIZE)
    for key in (265, 265, 263, 44):  # Up twice, Left, ","
        command = play.change_command(command, key)
    np.testing.assert_allclose(command, [0.5, 0.1, 0.25])
    command = play.change_command(play.change_command(command, 264), 262)  # Down, Right
    np.testing.assert_allclose(command, [0.25, 0.1, 0.0], atol=1e-12)
    np.testing.assert_array_equal(play.change_command(command, 268), 0.0)  # Home: stop


def test_a_gate_with_upper_bounds_passes_only_under_them():
    gate = get_config("trex_stage2")["gate"]
    good = dict(reached_time_limit=0.97, lin_vel_error_mean=0.2, yaw_rate_error_mean=0.25)
    assert curriculum.gate_decision(gate, good, [])["passed"]
    assert not curriculum.gate_decision(gate, good | dict(lin_vel_error_mean=0.3), [])["passed"]
    assert not curriculum.gate_decision(gate, good | dict(reached_time_limit=0.9), [])["passed"]
    assert curriculum.gate_decision(gate, good, [])["metrics"] == good
