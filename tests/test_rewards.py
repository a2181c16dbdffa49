"""Reward terms on hand-made numbers and on hand-made T-Rex states: standing is strictly the best posture."""

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest
from mujoco import mjx

import rewards
import simulation
import tasks
from configs import get_config


def test_upright_height_term():
    assert float(rewards.upright_height(0.9, 0.9, 0.08, 1.0)) == pytest.approx(1.0)
    assert float(rewards.upright_height(0.9 - 0.08, 0.9, 0.08, 1.0)) == pytest.approx(np.exp(-1.0))
    assert float(rewards.upright_height(0.9, 0.9, 0.08, 0.0)) == 0.0  # on its side
    assert float(rewards.upright_height(0.9, 0.9, 0.08, -1.0)) == 0.0  # upside down
    assert float(rewards.upright_height(0.9, 0.9, 0.08, np.cos(0.3))) == pytest.approx(np.cos(0.3) ** 2)


def test_posture_squared_norm_and_fallen():
    home = jnp.array([0.1, -0.2, 0.3])
    assert float(rewards.posture(home, home, 0.5)) == pytest.approx(1.0)
    assert float(rewards.posture(home + jnp.array([0.5, 0.0, 0.0]), home, 0.5)) == pytest.approx(np.exp(-1.0))
    assert float(rewards.squared_norm(jnp.array([3.0, 4.0]))) == pytest.approx(25.0)
    args = (0.6, 0.5, 0.7)
    assert not bool(rewards.fallen(0.9, 1.0, 1.0, *args))
    assert bool(rewards.fallen(0.5, 1.0, 1.0, *args))  # pelvis low
    assert bool(rewards.fallen(0.9, 0.4, 1.0, *args))  # head down
    assert bool(rewards.fallen(0.9, 1.0, np.cos(0.8), *args))  # tilted


def test_tilt_is_the_squared_sine():
    assert float(rewards.tilt(1.0)) == 0.0  # upright
    assert float(rewards.tilt(jnp.cos(0.3))) == pytest.approx(np.sin(0.3) ** 2)
    assert float(rewards.tilt(np.cos(0.7))) == pytest.approx(np.sin(0.7) ** 2)  # NumPy as in play.py


@pytest.fixture(scope="module")
def balance():
    config = get_config("trex_stage1")
    mj_model = tasks.load_model(config)
    mjx_model = simulation.put_model(mj_model)
    task = tasks.balance(config, mj_model, jnp)
    home = mj_model.keyframe("home").qpos

    @jax.jit
    def reward(qpos):
        data = mjx.kinematics(mjx_model, simulation.make_data(mjx_model).replace(qpos=qpos))
        zero = jnp.zeros(mj_model.nu)
        terms = task.reward_terms(data, zero, zero)
        return sum(config["reward_weights"][k] * v for k, v in terms.items()), terms, task.is_terminated(data)

    return reward, np.array(home)


def posed(home, height=None, roll=0.0, knee_bend=0.0):
    qpos = home.copy()
    if height is not None:
        qpos[2] = height
    qpos[3:7] = [np.cos(roll / 2), np.sin(roll / 2), 0.0, 0.0]
    qpos[7:] += knee_bend
    return jnp.asarray(qpos)


def test_standing_beats_crouching_sitting_and_lying(balance):
    reward, home = balance
    stand, stand_terms, stand_down = reward(posed(home))
    crouch, _, _ = reward(posed(home, height=home[2] - 0.12, knee_bend=0.2))
    sit, _, _ = reward(posed(home, height=0.45))
    lie, lie_terms, lie_down = reward(posed(home, height=0.35, roll=np.pi / 2))
    assert float(stand_terms["upright_height"]) == pytest.approx(1.0, abs=1e-3)
    assert float(stand_terms["posture"]) == pytest.approx(1.0, abs=1e-3)
    assert float(stand) > float(crouch) > float(sit) >= float(lie)
    assert float(lie_terms["upright_height"]) < 1e-3 and float(lie_terms["posture"]) < 1e-3  # nothing to farm
    assert not bool(stand_down) and bool(lie_down)


def test_speed_tracking_proximity_and_closing_terms():
    heading = jnp.array([0.6, 0.8])
    assert float(rewards.capped_speed(jnp.array([3.0, 4.0]), heading, 10.0)) == pytest.approx(5.0)
    assert float(rewards.capped_speed(jnp.array([3.0, 4.0]), heading, 2.0)) == pytest.approx(2.0)
    assert float(rewards.capped_speed(jnp.array([-3.0, -4.0]), heading, 2.0)) == pytest.approx(-5.0)  # no floor
    assert float(rewards.tracking(jnp.float32(0.0), 0.25)) == 1.0  # on the command
    assert float(rewards.tracking(jnp.float32(0.25), 0.25)) == pytest.approx(np.exp(-1.0))
    assert rewards.tracking(np.float64(0.5), 0.25) == pytest.approx(np.exp(-2.0))  # NumPy too
    assert float(rewards.proximity(0.0, 0.5)) == 1.0
    assert float(rewards.proximity(0.5, 0.5)) == pytest.approx(np.exp(-1.0))
    offset = jnp.array([3.0, 4.0, 0.0])  # the target 5 m away
    assert float(rewards.closing_speed(jnp.array([3.0, 4.0, 0.0]), offset)) == pytest.approx(5.0)
    assert float(rewards.closing_speed(jnp.array([1.0, 0.0, 2.0]), offset)) == pytest.approx(0.6)
    assert float(rewards.closing_speed(jnp.array([-4.0, 3.0, 0.0]), offset)) == pytest.approx(0.0)  # circling
    assert float(rewards.closing_speed(np.array([-3.0, -4.0, 0.0]), np.asarray(offset))) == pytest.approx(-5.0)


def test_joint_acc_counts_the_joints_not_the_falling_root():
    """`joint_acc` sums the squared accelerations of the leg, neck and tail joints: a body in free fall holding its
    home pose pays none of it (its root falls at g), the same body kicked toward action 1 pays what MuJoCo says."""
    config = get_config("velociraptor_stage2")
    mj_model = tasks.load_model(config)
    task = tasks.velocity(config, mj_model, np)
    data = mujoco.MjData(mj_model)
    zero = np.zeros(mj_model.nu)

    def terms_at(action):
        data.qpos[:] = mj_model.keyframe("home").qpos
        data.qpos[2] += 0.5  # off the floor: no contact
        data.qvel[:] = 0.0
        data.ctrl[:] = tasks.action_to_ctrl(tasks.legged_body(config, mj_model, np), action)
        mujoco.mj_forward(mj_model, data)
        return task.reward_terms(data, action, zero)["joint_acc"]

    assert float(terms_at(zero)) < 1e-6 and data.qacc[2] == pytest.approx(-9.81, abs=1e-3)
    kicked = float(terms_at(np.ones(mj_model.nu)))
    assert kicked == pytest.approx(float(np.sum(data.qacc[6:] ** 2)), rel=1e-6) and kicked > 1e3
