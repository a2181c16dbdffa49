"""analysis/fall_causes.py: what counts as an episode's success, and success split into thirds of a factor."""

import types

import numpy as np

from analysis import fall_causes


def test_success_is_the_tasks_or_else_reaching_the_time_limit():
    episodes = dict(reached_time_limit=np.array([True, True, False]), success=np.array([1.0, 0.0, 0.0]))
    with_success = types.SimpleNamespace(episode_success=lambda episode: episode["success"] > 0)
    assert fall_causes.succeeded(with_success, episodes).tolist() == [True, False, False]
    commands = types.SimpleNamespace(episode_success=None)  # stage 2: no success of its own
    assert fall_causes.succeeded(commands, episodes).tolist() == [True, True, False]


def test_success_by_thirds_of_a_factor_and_by_each_value_of_a_few():
    factor = np.arange(6.0)  # thirds: {0, 1}, {2, 3}, {4, 5}
    success = np.array([True, True, True, False, False, False])
    thirds = fall_causes.by_thirds(success, factor)
    assert [(t["low"], t["high"], t["episodes"], t["success"]) for t in thirds] == [
        (0.0, 1.0, 2, 1.0), (2.0, 3.0, 2, 0.5), (4.0, 5.0, 2, 0.0)]
    delays, success = np.array([0, 1, 1, 2]), np.array([True, False, True, False])
    assert [t["success"] for t in fall_causes.by_thirds(success, delays)] == [1.0, 0.5, 0.0]
