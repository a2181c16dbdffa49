"""analysis/episode_ends.py: how episodes ended, and where a stage-3 tip stood against its target at the end."""

import types

import mujoco
import numpy as np

import tasks
from analysis import episode_ends
from configs import get_config


def test_end_poses_give_the_nearest_tip_against_the_target_and_the_pelvis_tilt():
    config = get_config("velociraptor_stage3", {})
    model = tasks.load_model(config)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_kinematics(model, data)
    left_claw = data.site_xpos[model.site("l_claw_tip").id].copy()
    home = data.qpos.copy()
    rolled = home.copy()  # rolled 0.3 rad to its left, about the pelvis' forward axis
    mujoco.mju_mulQuat(rolled[3:7], home[3:7], [np.cos(0.15), np.sin(0.15), 0.0, 0.0])
    # Three episodes ending at steps 3, 1 and 2 (later steps hold other poses, never read): at home with the target
    # 0.3 m ahead of, 0.4 m beside and 0.2 m above the left claw; at home with it 0.1 m under the left claw; rolled.
    ends = [(home, left_claw + [0.3, 0.4, 0.2]), (home, left_claw - [0.0, 0.0, 0.1]), (rolled, left_claw)]
    lengths = np.array([3, 1, 2])
    poses = np.zeros((5, 3, model.nq + 3 * model.nmocap + model.nuserdata))  # qpos, target, command (zero)
    for episode, (pose, target) in enumerate(ends):
        poses[lengths[episode] - 1, episode, :model.nq + 3] = np.concatenate([pose, target])
    env = types.SimpleNamespace(mj_model=model, config=config)
    measures = episode_ends.end_pose_measures(env, dict(episode_length=lengths), poses)
    np.testing.assert_allclose(measures["tilt_sideways"], [0.0, 0.0, 0.3], atol=1e-6)
    np.testing.assert_allclose(measures["tilt_forward"], [0.0, 0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(measures["target_height"][:2], [left_claw[2] + 0.2, left_claw[2] - 0.1], atol=1e-9)
    np.testing.assert_allclose(measures["tip_gap_horizontal"][:2], [0.5, 0.0], atol=1e-9)
    np.testing.assert_allclose(measures["tip_gap_vertical"][:2], [0.2, -0.1], atol=1e-9)


def test_end_poses_of_a_stage_with_commands_give_the_signed_pitch_and_the_command():
    config = get_config("velociraptor_stage2", {})
    model = tasks.load_model(config)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    home = data.qpos.copy()
    nose_down, nose_up = home.copy(), home.copy()  # pitched 0.2 rad about the pelvis' left axis, each way
    mujoco.mju_mulQuat(nose_down[3:7], home[3:7], [np.cos(0.1), 0.0, np.sin(0.1), 0.0])
    mujoco.mju_mulQuat(nose_up[3:7], home[3:7], [np.cos(0.1), 0.0, -np.sin(0.1), 0.0])
    poses = np.zeros((2, 2, model.nq + 3 * model.nmocap + model.nuserdata))  # qpos, target, command
    poses[1, :, :model.nq] = nose_down, nose_up
    poses[1, :, model.nq + 3 * model.nmocap:][:, :3] = [[1.5, 0.0, 0.4], [-0.5, 0.2, -0.8]]
    env = types.SimpleNamespace(mj_model=model, config=config)
    measures = episode_ends.end_pose_measures(env, dict(episode_length=np.array([2, 2])), poses)
    np.testing.assert_allclose(measures["tilt_forward"], [0.2, -0.2], atol=1e-6)
    np.testing.assert_allclose(measures["tilt_sideways"], [0.0, 0.0], atol=1e-6)
    np.testing.assert_allclose(measures["command_forward"], [1.5, -0.5])
    np.testing.assert_allclose(measures["command_lateral"], [0.0, 0.2])
    np.testing.assert_allclose(measures["command_yaw_rate"], [0.4, -0.8])


def test_episodes_end_as_success_time_out_or_fall():
    episodes = dict(reached_time_limit=np.array([True, True, False, False]), success=np.array([1.0, 0.0, 1.0, 0.0]))
    env = types.SimpleNamespace(episode_success=lambda episode: episode["success"] > 0)
    ends = episode_ends.episode_ends(env, episodes)
    assert ends["success"].tolist() == [True, False, True, False]
    assert ends["time-out"].tolist() == [False, True, False, False]
    assert ends["fall"].tolist() == [False, False, False, True]
