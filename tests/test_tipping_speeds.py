"""benchmarks/tipping_speeds.py: a body holding its home pose rides out no kick and falls under a hard one."""

import numpy as np

import tasks
from benchmarks import tipping_speeds
from configs import get_config


def test_a_still_body_stands_and_a_hard_sideways_kick_topples_it():
    config = get_config("trex_stage1")
    model = tasks.load_model(config)
    body = tasks.legged_body(config, model, np)
    assert not tipping_speeds.topples(model, body, 0.0, 0.0)
    assert tipping_speeds.topples(model, body, 2.0, np.pi / 2)
