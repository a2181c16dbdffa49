"""Every species model: scale and conventions, only feet touch the floor, and it stands by itself for 5 s under zero
action in plain MuJoCo and in MJX (through the evaluation), on the nominal model; tests/test_randomization.py runs MJX
against plain MuJoCo (sim-to-sim) under randomization."""

import jax
import mujoco
import numpy as np
import pytest

import envs
import evaluation
import tasks
from configs import get_config

STAND_SECONDS = 5.0

# The ranges each model is built to (README, "Species").
SPECIES = {
    "trex": dict(mass=(80.0, 90.0), pelvis=(0.85, 0.95), actuators=14, tips=["jaw_tip"]),
    "velociraptor": dict(mass=(12.5, 14.5), pelvis=(0.45, 0.55), actuators=14, tips=["l_claw_tip", "r_claw_tip"]),
    "brachiosaurus": dict(mass=(165.0, 185.0), pelvis=(0.9, 1.4), actuators=21, tips=["head_tip"]),
}


def stage1_model(species):
    return tasks.load_model(get_config(f"{species}_stage1"))


def is_foot(mj_model, geom):
    return mj_model.body(mj_model.geom_bodyid[geom]).name.endswith(("_foot", "_toes"))


def floor_contacts_only(mj_model, data):
    """True when every active contact is between the floor and a geom of a foot body (`*_foot`, `*_toes`)."""
    floor = mj_model.geom("floor").id
    for c in data.contact[: data.ncon]:
        other = c.geom2 if c.geom1 == floor else c.geom1 if c.geom2 == floor else None
        if other is None or not is_foot(mj_model, other):
            return False
    return True


@pytest.mark.parametrize("species", SPECIES)
def test_model_scale_and_conventions(species):
    expected = SPECIES[species]
    mj_model = stage1_model(species)
    home = mj_model.keyframe("home")
    assert expected["mass"][0] <= mj_model.body_subtreemass[0] <= expected["mass"][1]
    assert expected["pelvis"][0] <= home.qpos[2] <= expected["pelvis"][1]
    assert mj_model.nu == expected["actuators"] and mj_model.nq == 7 + mj_model.nu  # a free root + one hinge each
    assert mj_model.jnt_type[0] == mujoco.mjtJoint.mjJNT_FREE and mj_model.body(mj_model.jnt_bodyid[0]).name == "pelvis"
    assert list(mj_model.actuator_trnid[:, 0]) == list(range(1, mj_model.njnt))  # actuators in qpos order
    np.testing.assert_allclose(home.ctrl, home.qpos[7:])  # zero action holds home
    for name in expected["tips"] + ["imu"]:
        assert mj_model.site(name).id >= 0
    for kind in (mujoco.mjtGeom.mjGEOM_MESH, mujoco.mjtGeom.mjGEOM_HFIELD, mujoco.mjtGeom.mjGEOM_SDF):
        assert kind not in mj_model.geom_type  # primitive geoms only
    colliding = [g for g in range(mj_model.ngeom) if mj_model.geom_contype[g] or mj_model.geom_conaffinity[g]]
    assert all(is_foot(mj_model, g) for g in colliding if g != mj_model.geom("floor").id)


def test_species_proportions():
    raptor, brachio = stage1_model("velociraptor"), stage1_model("brachiosaurus")
    data = mujoco.MjData(brachio)
    mujoco.mj_resetDataKeyframe(brachio, data, brachio.keyframe("home").id)
    mujoco.mj_kinematics(brachio, data)
    assert 2.3 <= data.site("head_tip").xpos[2] <= 2.7
    assert data.body("fl_foot").xpos[2] < 0.3 and data.xpos[brachio.body("torso").id][2] > data.qpos[2]  # shoulders up
    data = mujoco.MjData(raptor)
    mujoco.mj_resetDataKeyframe(raptor, data, raptor.keyframe("home").id)
    mujoco.mj_kinematics(raptor, data)
    for claw in ["l_claw_tip", "r_claw_tip"]:
        assert data.site(claw).xpos[2] > 0.01  # the sickle claw is held off the ground


@pytest.mark.parametrize("species", SPECIES)
def test_stands_by_itself_in_mujoco_with_only_foot_contacts(species):
    mj_model = stage1_model(species)
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


def zero_action_episodes(species):
    """(summary, poses) of 3 episodes of STAND_SECONDS from fresh random starts without pushes, holding home, on the
    nominal model (tests/test_randomization.py compares MJX with plain MuJoCo under randomization)."""
    config = get_config(f"{species}_stage1")
    env = envs.make_env(f"{species}_stage1", episode_length=round(STAND_SECONDS / config["ctrl_dt"]),
                        push_interval=0, **{"randomize.enabled": False})
    episodes, poses = evaluation.evaluate(env, evaluation.zero_policy(env), jax.random.key(0), 3)
    pose_size = env.mj_model.nq + 3 * env.mj_model.nmocap + env.mj_model.nuserdata  # qpos, target, command
    assert poses.shape == (env.config["episode_length"], 3, pose_size)
    return evaluation.evaluation_summary(env, episodes), poses


@pytest.mark.parametrize("species", SPECIES)
def test_loads_in_mjx_and_stands_under_zero_action(species):
    summary, poses = zero_action_episodes(species)
    assert summary["reached_time_limit"] == 1.0 and summary["success_rate"] == 1.0  # stood to the limit, standing
    heights = poses[:, :, 2]  # pelvis height at every step of every episode
    assert np.abs(heights - heights[0]).max() < 0.05
    assert abs(summary["forward_speed_mean"]) < 0.1  # settling, not walking
