"""benchmarks/episode_ends.py: how episodes ended, and where a stage-3 tip stood against its target at the end."""

import types

import mujoco
import numpy as np

import tasks
from benchmarks import episode_ends
from configs import get_config


def test_tip_gaps_measure_the_nearest_tip_against_the_target_at_each_episode_end():
    config = get_config("velociraptor_stage3", {})
    model = tasks.load_model(config)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_kinematics(model, data)
    left_claw = data.site_xpos[model.site("l_claw_tip").id].copy()
    home = data.qpos.copy()
    # Two episodes: the target 0.3 m ahead of and 0.4 m beside the left claw, 0.2 m above it, ending at step 3; and
    # 0.1 m under the left claw, ending at step 1. Steps after an episode's end hold other poses, never read.
    targets = [left_claw + [0.3, 0.4, 0.2], left_claw - [0.0, 0.0, 0.1]]
    lengths = np.array([3, 1])
    poses = np.zeros((5, 2, model.nq + 3))
    for episode, target in enumerate(targets):
        poses[lengths[episode] - 1, episode] = np.concatenate([home, target])
    env = types.SimpleNamespace(mj_model=model, config=config)
    gaps = episode_ends.tip_gaps(env, dict(episode_length=lengths), poses)
    np.testing.assert_allclose(gaps["target_height"], [left_claw[2] + 0.2, left_claw[2] - 0.1], atol=1e-9)
    np.testing.assert_allclose(gaps["tip_gap_horizontal"], [0.5, 0.0], atol=1e-9)
    np.testing.assert_allclose(gaps["tip_gap_vertical"], [0.2, -0.1], atol=1e-9)


def test_episodes_end_as_success_time_out_or_fall():
    episodes = dict(reached_time_limit=np.array([True, True, False, False]), success=np.array([1.0, 0.0, 1.0, 0.0]))
    env = types.SimpleNamespace(episode_success=lambda episode: episode["success"] > 0)
    ends = episode_ends.episode_ends(env, episodes)
    assert ends["success"].tolist() == [True, False, True, False]
    assert ends["time-out"].tolist() == [False, True, False, False]
    assert ends["fall"].tolist() == [False, False, False, True]
