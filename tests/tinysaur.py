"""A made-up two-legged species, added from outside models/ and configs/ as a user adds one: its model
(assets/tinysaur.xml, following the conventions model_checks.py checks: 0.8 kg of pelvis in 2 kg, so that a fixed
(-1, 1) kg payload would leave the pelvis with no mass) and a config of its lengths only. Its programs are the
smallest of any legged body: tests/test_new_species.py takes it through its curriculum and tests/test_cli.py trains
its stage 1 at the same settings, so that the two read back each other's compiled programs."""

import contextlib
import os

import configs
from configs.stages import species_stages

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "tinysaur.xml")
# Home: pelvis 0.42 m, head 0.57 m. Only lengths are stated; payload and stage-1 pushes scale with the body.
BODY = dict(standing_height=0.36, min_pelvis_height=0.25, min_head_height=0.3, height_sigma=0.04, target_speed=1.0)
STAGES = ({}, {},
          dict(tip_sites=("snout_tip",), success_radius=0.1, target_distance=(0.5, 2.0), target_height=(0.4, 0.7)))
# Each stage: 2 updates of 4 envs x 8 steps, 16-step episodes, evaluations of 2 episodes, 16-unit networks.
TINY = ["--num-envs", "4", "--total-timesteps", "64", "--set", "num_steps=8", "--set", "episode_length=16",
        "--set", "num_minibatches=2", "--set", "update_epochs=1", "--set", "eval_episodes=2", "--set", "log_every=1",
        "--set", "actor_hidden=(16, 16)", "--set", "critic_hidden=(16, 16)"]


@contextlib.contextmanager
def registered():
    """Yields the species' stage configs, registered under tinysaur_stage1-3 until the block ends."""
    stages = species_stages("tinysaur", dict(BODY, model=MODEL), STAGES)
    configs.register(stages)
    try:
        yield stages
    finally:
        for name in stages:
            configs.CONFIGS.pop(name)
