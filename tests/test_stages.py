"""The three stages on every species: shared observation and action sizes, targets placed as configured, reward terms
and success on hand-made states (the closing speed against the tip distance's rate, the success bonus against
standing by the target for ever), old stage-3 configs, termination."""

import dataclasses
import json
import os

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from mujoco import mjx

import configs
import envs
import simulation
import tasks
from configs import from_saved, get_config
from test_species import SPECIES


def probe(name):
    """(look, config, mj_model): `look(qpos, qvel, target)` is what the task computes for that hand-made state."""
    config = get_config(name)
    mj_model = tasks.load_model(config)
    mjx_model = simulation.put_model(mj_model)
    task = tasks.TASKS[config["task"]](config, mj_model, jnp)
    mocap = mj_model.body_mocapid[mj_model.body("target").id]

    @jax.jit
    def look(qpos, qvel, target):
        data = simulation.make_data(mjx_model)
        data = data.replace(qpos=qpos, qvel=qvel, mocap_pos=data.mocap_pos.at[mocap].set(target))
        data = mjx.kinematics(mjx_model, data)
        zero = jnp.zeros(mj_model.nu)
        return dict(terms=task.reward_terms(data, zero, zero), failed=task.is_terminated(data),
                    success=task.is_success(data), obs=task.observe(data, zero), measure=task.measure(data),
                    site_xpos=data.site_xpos)

    return look, config, mj_model


def home_state(mj_model):
    return np.array(mj_model.keyframe("home").qpos), np.zeros(mj_model.nv)


@pytest.mark.parametrize("species", SPECIES)
def test_stages_share_observation_and_action_sizes(species):
    stage_envs = [envs.make_env(f"{species}_stage{i}") for i in (1, 2, 3)]
    mj_model = stage_envs[0].mj_model
    touch = sum(mj_model.sensor_type == mujoco.mjtSensor.mjSENS_TOUCH)
    # gravity 3, height 1, linear and angular velocity 6, joints and their velocities, touch, last action, command 3,
    # target 3
    expected = 3 + 1 + 6 + 2 * (mj_model.nq - 7) + touch + mj_model.nu + 3 + 3
    for env in stage_envs:
        assert (env.observation_size, env.action_size) == (expected, mj_model.nu)
    for i in (1, 2, 3):  # without the touch sensors (observe_contacts=False), one group fewer and nothing else
        env = envs.make_env(f"{species}_stage{i}", observe_contacts=False)
        assert env.observation_size == expected - touch
        assert [g["name"] for g in tasks.observation_layout(env.config, env.mj_model)] == [
            name for name in tasks.OBSERVATION_GROUPS if name not in ("foot_contacts", "heading_error")]


def test_contacts_scaled_by_the_body_weight_match_a_numpy_reference():
    """With contact_weight_share, each touch sensor reads its force over that share of the body's weight, up to 1:
    standing at home on the Velociraptor's four sensors, and with the body lifted clear of the floor (0 everywhere)."""
    config = get_config("velociraptor_stage1", {"contact_weight_share": 0.5})
    mj_model = tasks.load_model(config)
    data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.keyframe("home").id)
    for _ in range(200):  # settle onto the feet
        mujoco.mj_step(mj_model, data)
    body = tasks.legged_body(config, mj_model, np)
    touch = data.sensordata[body.touch_adr]
    weight = mj_model.body_mass.sum() * 9.81
    scaled = tasks.foot_contacts(body, data)
    np.testing.assert_allclose(scaled, np.minimum(touch / (0.5 * weight), 1.0), rtol=1e-5)
    assert np.all((scaled > 0.2) & (scaled < 1.0))  # four sensors share the weight: none reads 0 or saturates
    binary = tasks.foot_contacts(tasks.legged_body(get_config("velociraptor_stage1"), mj_model, np), data)
    np.testing.assert_array_equal(binary, 1.0)
    data.qpos[2] += 0.5
    mujoco.mj_forward(mj_model, data)
    np.testing.assert_array_equal(tasks.foot_contacts(body, data), 0.0)


@pytest.fixture(scope="module")
def trex_stage3_resets():
    """256 fresh starts of the T-Rex's stage 3, observed exactly (no randomization)."""
    env = envs.make_env("trex_stage3", **{"randomize.enabled": False})
    return env, jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), 256))


def start_geometry(state):
    """(target minus start pelvis position, start yaw) of a batch of fresh starts (home has no roll or pitch)."""
    qpos, target = np.asarray(state.data.qpos), np.asarray(state.data.mocap_pos[:, 0])
    yaw = 2 * np.arctan2(qpos[:, 6], qpos[:, 3])
    return target - qpos[:, :3], yaw


def test_behaviour_targets_follow_the_config(trex_stage3_resets):
    env, state = trex_stage3_resets
    offset, yaw = start_geometry(state)
    ahead = offset[:, 0] * np.cos(yaw) + offset[:, 1] * np.sin(yaw)
    left = -offset[:, 0] * np.sin(yaw) + offset[:, 1] * np.cos(yaw)
    low, high = env.config["target_distance"]
    assert low - 1e-4 <= ahead.min() and ahead.max() <= high + 1e-4 and ahead.std() > 1.0
    assert np.abs(left).max() <= env.config["target_lateral"] + 1e-4 and left.std() > 0.5
    heights = np.asarray(state.data.mocap_pos[:, 0, 2])
    assert env.config["target_height"][0] <= heights.min() and heights.max() <= env.config["target_height"][1]
    obs = np.asarray(state.obs)
    np.testing.assert_allclose(np.linalg.norm(obs[:, -3:-1], axis=1), np.linalg.norm(offset[:, :2], axis=1),
                               rtol=1e-4)  # the observed target: its distance ahead/left, and its height
    np.testing.assert_allclose(obs[:, -1], offset[:, 2], atol=1e-5)


@pytest.fixture(scope="module", params=list(SPECIES))
def behaviour(request):
    return probe(f"{request.param}_stage3")


def test_success_when_a_tip_reaches_the_target_and_not_when_far(behaviour):
    look, config, mj_model = behaviour
    qpos, qvel = home_state(mj_model)
    tips = np.asarray(look(qpos, qvel, np.zeros(3))["site_xpos"])[[mj_model.site(n).id for n in config["tip_sites"]]]
    radius = config["success_radius"]
    for target, reached in [(tips[0], True), (tips[0] + [0, 0, 0.9 * radius], True),
                            (tips[0] + [0, 0, 1.1 * radius], False), (tips[0] + [3.0, 0, 0], False)]:
        out = look(qpos, qvel, target)
        distance = np.linalg.norm(tips - target, axis=1).min()
        assert bool(out["success"]) == reached and float(out["terms"]["success"]) == float(reached)
        assert float(out["measure"]["tip_distance"]) == pytest.approx(distance, abs=1e-4)
        assert float(out["terms"]["proximity"]) == pytest.approx(np.exp(-(distance / config["proximity_sigma"]) ** 2),
                                                                 abs=1e-4)
        assert not bool(out["failed"])


@pytest.mark.parametrize("species", SPECIES)
def test_closing_speed_is_the_rate_at_which_the_nearest_tip_distance_falls(species):
    """On NumPy and plain MuJoCo (as play.py computes it): the closing term against the distance's finite difference
    over a tiny step of a random motion."""
    config = get_config(f"{species}_stage3")
    mj_model = tasks.load_model(config)
    task = tasks.TASKS["behaviour"](config, mj_model, np)
    data = mujoco.MjData(mj_model)
    target, rng, closings = mj_model.body_mocapid[mj_model.body("target").id], np.random.default_rng(0), []
    for _ in range(3):
        mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.keyframe("home").id)
        data.qvel[:] = rng.normal(0.0, 1.0, mj_model.nv)
        data.mocap_pos[target] = data.qpos[:3] + rng.uniform([0.5, -1.0, -0.5], [2.0, 1.0, 1.5])
        mujoco.mj_forward(mj_model, data)
        closings.append(float(task.reward_terms(data, np.zeros(mj_model.nu), np.zeros(mj_model.nu))["closing"]))
        before, dt = float(task.measure(data)["tip_distance"]), 1e-6
        mujoco.mj_integratePos(mj_model, data.qpos, data.qvel, dt)
        mujoco.mj_kinematics(mj_model, data)
        after = float(task.measure(data)["tip_distance"])
        assert closings[-1] == pytest.approx((before - after) / dt, rel=1e-3, abs=1e-3)
    assert max(map(abs, closings)) > 0.1  # the motions moved the tips


def test_reaching_the_target_pays_more_than_standing_next_to_it_for_ever(behaviour):
    """Success ends the episode with no bootstrapping past it, so its bonus must outweigh what the task would pay a
    body standing at home, facing the target, a tip just outside the success radius, for ever (discounted by gamma):
    otherwise standing there is worth as much as the strike (results/README.md: stage 3's time-outs)."""
    look, config, mj_model = behaviour
    qpos, qvel = home_state(mj_model)
    tips = np.asarray(look(qpos, qvel, np.zeros(3))["site_xpos"])[[mj_model.site(n).id for n in config["tip_sites"]]]
    out = look(qpos, qvel, tips[0] + [1.01 * config["success_radius"], 0, 0])  # ahead: home faces +x
    assert not bool(out["success"])
    weights = config["reward_weights"]
    standing = sum(weights[k] * float(v) for k, v in out["terms"].items() if k != "success")
    assert weights["success"] > standing / (1 - config["gamma"]), f"standing pays {standing:.3f} per step"


def committed_config(stage, drop=(), drop_weights=(), species="brachiosaurus"):
    """A committed stage's config.json (the Brachiosaurus' unless `species`) as a config saved before `drop` (keys)
    and `drop_weights` (reward terms) existed would read."""
    with open(os.path.join(os.path.dirname(tasks.MODELS_DIR), "results", f"{species}_curriculum_cpu_seed0",
                           f"{species}_stage{stage}", "config.json")) as f:
        saved = json.load(f)
    saved["reward_weights"] = {k: v for k, v in saved["reward_weights"].items() if k not in drop_weights}
    return {k: v for k, v in saved.items() if k not in drop}


def test_a_stage3_saved_before_the_closing_term_rebuilds_as_it_was_trained():
    """A stage 3 trained with the proximity term, before `closing` (and `joint_acc`) existed, weighs them 0."""
    saved = committed_config(3, drop_weights=("closing", "joint_acc"))
    name, _, overrides = from_saved(saved)
    weights = get_config(name, overrides)["reward_weights"]
    assert weights["closing"] == 0.0 and get_config(name)["reward_weights"]["closing"] > 0
    assert weights == dict(saved["reward_weights"], closing=0.0, joint_acc=0.0)


def test_a_stage3_saved_before_the_approach_command_rebuilds_observing_none():
    """A stage 3 trained when it observed a zero command evaluates and warm-starts observing zero, not the approach."""
    name, _, overrides = from_saved(committed_config(3, drop=("approach_command",)))
    assert get_config(name, overrides)["approach_command"] == 0.0 and get_config(name)["approach_command"] > 0


def test_a_stage2_saved_before_the_orientation_term_rebuilds_as_it_was_trained():
    """A stage 2 trained before `orientation` and `joint_acc` existed weighs them 0 when it evaluates or resumes, not
    today's costs (as it does `tracking_heading` and the linear tracking terms, newer than this committed stage)."""
    saved = committed_config(2, drop_weights=("orientation", "joint_acc"))
    name, _, overrides = from_saved(saved)
    weights = get_config(name, overrides)["reward_weights"]
    assert weights["orientation"] == 0.0 and get_config(name)["reward_weights"]["orientation"] < 0
    assert weights == dict(saved["reward_weights"], orientation=0.0, joint_acc=0.0, tracking_heading=0.0,
                           tracking_lin_vel_linear=0.0, tracking_yaw_rate_linear=0.0)


def test_a_stage_saved_before_the_solver_iterations_setting_rebuilds_as_it_was_trained():
    """A stage saved before `solver_iterations` existed steps the MJCF's 2 iterations, whatever today's default."""
    name, _, overrides = from_saved(committed_config(1, drop=("solver_iterations",)))
    assert overrides["solver_iterations"] == 2 and get_config(name, overrides)["solver_iterations"] == 2


def test_a_stage2_saved_before_the_backward_share_rebuilds_as_it_was_trained():
    """A T-Rex stage 2 trained before `command.backward_share` existed draws its commands uniformly (share 0) when it
    evaluates or resumes, not with the T-Rex's share of walks backward."""
    saved = committed_config(2, species="trex")
    saved["command"] = {k: v for k, v in saved["command"].items() if k != "backward_share"}
    name, _, overrides = from_saved(saved)
    assert get_config(name)["command"]["backward_share"] > 0
    assert get_config(name, overrides)["command"]["backward_share"] == 0.0


def test_a_stage_saved_with_white_exploration_noise_rebuilds_with_it():
    """A Brachiosaurus stage trained before `action_noise_correlation` existed resumes and warm-starts with white
    noise (0), not with the species' correlated default."""
    saved = committed_config(1, drop=("action_noise_correlation",))
    name, _, overrides = from_saved(saved)
    assert get_config(name)["action_noise_correlation"] > 0
    assert get_config(name, overrides)["action_noise_correlation"] == 0.0


def test_a_stage_saved_before_decoupled_mirror_images_rebuilds_with_rsl_rls_ratios():
    """A T-Rex stage trained before `symmetry_ratio_from_image` existed resumes with its images' ratios taken as
    rsl_rl takes them (False), not decoupled as the T-Rex's default is."""
    name, _, overrides = from_saved(committed_config(2, drop=("symmetry_ratio_from_image",), species="trex"))
    assert get_config(name)["symmetry_ratio_from_image"] is True
    assert get_config(name, overrides)["symmetry_ratio_from_image"] is False


def test_a_stage_saved_before_action_smoothing_rebuilds_with_raw_actions(monkeypatch):
    """A stage trained before `action_smoothing` existed evaluates and warm-starts applying its raw actions (0), even
    where the species' config low-passes them."""
    name = "velociraptor_stage2"
    monkeypatch.setitem(configs.CONFIGS, name, dict(configs.CONFIGS[name], action_smoothing=0.3))
    name, _, overrides = from_saved(committed_config(2, drop=("action_smoothing",), species="velociraptor"))
    assert get_config(name)["action_smoothing"] == 0.3
    assert get_config(name, overrides)["action_smoothing"] == 0.0


def test_termination_conditions(behaviour):
    look, config, mj_model = behaviour
    qpos, qvel = home_state(mj_model)
    far = np.array([50.0, 0.0, 1.0])
    assert not bool(look(qpos, qvel, far)["failed"])
    low = qpos.copy()
    low[2] = config["min_pelvis_height"] - 0.02
    assert bool(look(low, qvel, far)["failed"])

    def tilted(axis, angle):
        """Home turned by `angle` about a world `axis` through the pelvis."""
        turned, turn = qpos.copy(), np.zeros(4)
        mujoco.mju_axisAngle2Quat(turn, np.array(axis, float), angle)
        mujoco.mju_mulQuat(turned[3:7], turn, qpos[3:7])
        return turned

    for sign in (1, -1):
        assert not bool(look(tilted([1, 0, 0], sign * 0.5 * config["max_tilt"]), qvel, far)["failed"])
        for axis in ([1, 0, 0], [0, 1, 0]):  # roll and pitch
            assert bool(look(tilted(axis, sign * (config["max_tilt"] + 0.1)), qvel, far)["failed"])


def test_success_ends_the_episode_with_no_termination_penalty():
    from cartpole import CONFIG, MODEL, cartpole_task

    config = dict(CONFIG, reward_weights=dict(upright=1.0, termination=-10.0))
    mj_model = mujoco.MjModel.from_xml_path(MODEL)
    task = dataclasses.replace(cartpole_task(mj_model), is_success=lambda data: data.qpos[0] > -1.0)  # always
    env = envs.build_env("cartpole_success", config, mj_model, task)
    state = jax.jit(env.step)(env.reset(jax.random.key(0)), jnp.zeros(env.action_size))
    assert bool(state.terminated) and not bool(state.truncated)
    assert float(state.info["reward/termination"]) == 0.0 and float(state.reward) == 1.0
    assert int(state.time) == 0  # auto-reset


def test_stage3_approach_command_walks_to_the_target_and_stops_level_with_it():
    """With `approach_command`, stage 3 observes a command toward the target (NumPy, as play.py computes it): full
    speed to a far target, the bearing as the yaw rate (capped), nothing once the nearest tip is level with it."""
    config = get_config("velociraptor_stage3", dict(approach_command=2.0))
    mj_model = tasks.load_model(config)
    data = mujoco.MjData(mj_model)
    task = tasks.TASKS["behaviour"](config, mj_model, np)
    group = next(g for g in tasks.observation_layout(config, mj_model) if g["name"] == "command")
    mocap = mj_model.body_mocapid[mj_model.body("target").id]
    data.qpos[:] = mj_model.keyframe("home").qpos  # faces +x
    mujoco.mj_forward(mj_model, data)
    tip = min(data.site(name).xpos[0] for name in config["tip_sites"])  # x of the claw farther back

    def command(target):
        data.mocap_pos[mocap] = target
        mujoco.mj_forward(mj_model, data)
        return task.observe(data, np.zeros(mj_model.nu))[group["start"]:group["stop"]]

    pelvis = data.qpos[:3].copy()
    np.testing.assert_allclose(command(pelvis + [6.0, 0.0, 0.0]), [2.0, 0.0, 0.0], atol=1e-6)
    near = command(pelvis + [tip - pelvis[0] + 0.3, -0.4, 0.0])
    assert 0.25 < near[0] < 0.35 and near[1] == 0.0
    assert near[2] == pytest.approx(np.arctan2(-0.4, tip - pelvis[0] + 0.3), abs=1e-6)
    assert command(pelvis + [0.0, 3.0, 0.0])[2] == pytest.approx(2.0 / tasks.APPROACH_TURN_RADIUS)
    level = data.site(config["tip_sites"][0]).xpos.copy()
    assert command(level)[0] == pytest.approx(0.0, abs=1e-9)
    without = get_config("velociraptor_stage3", dict(approach_command=0.0))
    plain = tasks.TASKS["behaviour"](without, mj_model, np).observe(data, np.zeros(mj_model.nu))
    assert not plain[group["start"]:group["stop"]].any()  # without it stage 3 observes no command
