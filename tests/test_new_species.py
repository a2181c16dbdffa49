"""A species added from outside models/ and configs/: a made-up two-legged body (a minimal MJCF written here, following
the conventions model_checks.py checks) with a config of its lengths only, registered with `configs.register`. Its
body-scaled defaults fit its body (a payload below its light pelvis' mass, Froude-scaled pushes), and the curriculum
command line takes it through its three stages (a few tiny updates each) to finite records."""

import csv
import json
import math
import os

import numpy as np
import pytest

import cli
import configs
import model_checks
import randomization
import tasks
from configs.stages import species_stages

# 0.8 kg of pelvis in 2 kg: a fixed (-1, 1) kg payload would leave the pelvis with no mass.
MODEL = """<mujoco model="tinysaur">
  <compiler angle="radian" autolimits="true"/>
  <option timestep="0.004" iterations="2" ls_iterations="4"/>
  <default>
    <geom contype="0" conaffinity="0"/>
    <position kp="20" kv="0.5" inheritrange="1"/>
    <joint damping="0.5" armature="0.01"/>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" contype="1" conaffinity="1"/>
    <body name="pelvis" pos="0 0 0.42">
      <freejoint name="root"/>
      <site name="imu" size="0.01"/>
      <camera name="track" pos="0 -1.5 0.2" xyaxes="1 0 0 0 0.1 1" mode="trackcom"/>
      <geom name="pelvis" type="box" size="0.1 0.12 0.04" mass="0.8"/>
      <body name="head" pos="0.12 0 0.15">
        <geom name="head" type="sphere" size="0.05" mass="0.2"/>
        <site name="snout_tip" pos="0.05 0 0" size="0.01"/>
      </body>
      <body name="l_leg" pos="0 0.1 0">
        <joint name="l_hip" type="hinge" axis="0 1 0" range="-0.8 0.8"/>
        <geom name="l_leg" type="capsule" fromto="0 0 0 0 0 -0.38" size="0.02" mass="0.3"/>
        <body name="l_foot" pos="0 0 -0.4">
          <geom name="l_heel" type="sphere" pos="-0.06 0 0" size="0.02" contype="2" conaffinity="1" mass="0.1"/>
          <geom name="l_toe" type="sphere" pos="0.06 0 0" size="0.02" contype="2" conaffinity="1" mass="0.1"/>
          <site name="l_foot_touch" type="box" size="0.085 0.025 0.025"/>
        </body>
      </body>
      <body name="r_leg" pos="0 -0.1 0">
        <joint name="r_hip" type="hinge" axis="0 1 0" range="-0.8 0.8"/>
        <geom name="r_leg" type="capsule" fromto="0 0 0 0 0 -0.38" size="0.02" mass="0.3"/>
        <body name="r_foot" pos="0 0 -0.4">
          <geom name="r_heel" type="sphere" pos="-0.06 0 0" size="0.02" contype="2" conaffinity="1" mass="0.1"/>
          <geom name="r_toe" type="sphere" pos="0.06 0 0" size="0.02" contype="2" conaffinity="1" mass="0.1"/>
          <site name="r_foot_touch" type="box" size="0.085 0.025 0.025"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="l_hip" joint="l_hip"/>
    <position name="r_hip" joint="r_hip"/>
  </actuator>
  <sensor>
    <touch name="l_foot_touch" site="l_foot_touch"/>
    <touch name="r_foot_touch" site="r_foot_touch"/>
  </sensor>
  <keyframe>
    <key name="home" qpos="0 0 0.42 1 0 0 0 0 0" ctrl="0 0"/>
  </keyframe>
</mujoco>
"""

# Home: pelvis 0.42 m, head 0.57 m. Only lengths are stated; payload and stage-1 pushes scale with the body.
BODY = dict(standing_height=0.36, min_pelvis_height=0.25, min_head_height=0.3, height_sigma=0.04, target_speed=1.0)
STAGES = ({}, {},
          dict(tip_sites=("snout_tip",), success_radius=0.1, target_distance=(0.5, 2.0), target_height=(0.4, 0.7)))

# Each stage: 2 updates of 4 envs x 8 steps, a gate evaluation of 2 episodes (16 steps) after each update.
TINY = ["--num-envs", "4", "--total-timesteps", "64", "--set", "num_steps=8", "--set", "episode_length=16",
        "--set", "num_minibatches=2", "--set", "update_epochs=1", "--set", "eval_episodes=2",
        "--set", "gate.eval_every=1", "--set", "log_every=1", "--set", "actor_hidden=(16, 16)",
        "--set", "critic_hidden=(16, 16)"]


@pytest.fixture(scope="module")
def species(tmp_path_factory):
    """The made-up species' stage configs, registered under tinysaur_stage1-3 for this module's tests."""
    path = tmp_path_factory.mktemp("tinysaur") / "tinysaur.xml"
    path.write_text(MODEL)
    stages = species_stages("tinysaur", dict(BODY, model=str(path)), STAGES)
    configs.register(stages)
    yield stages
    for name in stages:
        configs.CONFIGS.pop(name)


def test_a_name_registered_twice_is_refused(species):
    with pytest.raises(configs.ConfigError, match="^env names already registered: tinysaur_stage1$"):
        configs.register({"tinysaur_stage1": species["tinysaur_stage1"]})


def test_body_scaled_defaults_fit_the_body(species):
    config = configs.get_config("tinysaur_stage1")
    mj_model = tasks.load_model(config)
    model_checks.check_model(mj_model, config)
    randomization.check(config, mj_model)
    assert config["randomize"]["payload"] == config["push_speed"] == configs.BODY_SCALED
    scaled = randomization.body_scaled(config, mj_model)
    low, high = scaled["randomize"]["payload"]
    pelvis = mj_model.body("pelvis").mass[0]
    assert -low == high == pytest.approx(0.05 * 2.0) and high < pelvis < 1.0
    unit = math.sqrt(9.81 * 0.42)  # Froude scaling: sqrt(g x home pelvis height)
    assert scaled["push_speed"] == pytest.approx(tuple(unit * f for f in config["push_froude"]))
    assert randomization.plan(config, mj_model).push_speed == scaled["push_speed"]
    # The T-Rex states its tuned push speeds, which the Froude default reproduces for its body.
    trex = configs.get_config("trex_stage1", {"push_speed": configs.BODY_SCALED})
    trex_model = tasks.load_model(trex)
    assert randomization.body_scaled(trex, trex_model)["push_speed"] == pytest.approx((0.2, 0.4), abs=2e-3)


def test_the_curriculum_trains_each_stage_to_finite_records(species, tmp_path):
    out = tmp_path / "curriculum"
    cli.main(["--env", "tinysaur", "--curriculum", "--seed", "0", "--out", str(out), *TINY])
    with open(out / "curriculum.json") as f:
        stages = json.load(f)["stages"]
    assert [s["stage"] for s in stages] == list(species)
    for name in species:
        with open(out / name / "eval.json") as f:
            evaluation = json.load(f)
        numbers = [v for v in evaluation.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        assert numbers and np.all(np.isfinite(numbers)), name
        with open(out / name / "metrics.csv") as f:
            rows = list(csv.DictReader(f))
        assert len(rows) == 2, name  # the first update ends no episode: its episode metrics are NaN by design
        assert all(math.isfinite(float(v)) for v in rows[-1].values()), name
        assert all(math.isfinite(float(row[k])) for row in rows for k in ("actor_loss", "value_loss", "reward")), name
        assert os.path.exists(out / name / "checkpoint.msgpack"), name
