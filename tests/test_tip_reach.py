"""benchmarks/tip_reach.py: a tip's chain is its own leg or neck, and its reach grows with the action's range."""

import numpy as np

import tasks
from benchmarks import tip_reach
from configs import get_config


def test_the_claw_moves_with_its_leg_and_reaches_higher_with_a_wider_action_range():
    reach = {}
    for scale in (0.01, 0.5):
        config = get_config("velociraptor_stage3", {"action_scale": scale})
        model = tasks.load_model(config)
        site = model.site("l_claw_tip").id
        names = [model.actuator(a).name for a in tip_reach.chain_actuators(model, site)]
        assert names == ["l_hip_pitch", "l_hip_roll", "l_knee", "l_ankle", "l_toe"]
        reach[scale] = tip_reach.highest_reach(model, config, site, np.random.default_rng(0))
    (home, barely), (same_home, highest) = reach[0.01], reach[0.5]
    assert home == same_home and home <= barely < home + 0.02
    assert highest > home + 0.2
