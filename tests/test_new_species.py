"""A species added from outside models/ and configs/ (tests/tinysaur.py: a made-up two-legged body with a config of
its lengths only, registered with `configs.register`): its body-scaled defaults fit its body (a payload below its
light pelvis' mass, Froude-scaled pushes), and the curriculum command line takes it through its three stages (a few
tiny updates each) to finite records."""

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
import tinysaur

# The curriculum gates every update, on evaluations of 2 episodes.
CURRICULUM = [*tinysaur.TINY, "--set", "gate.eval_every=1"]


def test_a_name_registered_twice_is_refused(made_up_species):
    with pytest.raises(configs.ConfigError, match="^env names already registered: tinysaur_stage1$"):
        configs.register({"tinysaur_stage1": made_up_species["tinysaur_stage1"]})


def test_body_scaled_defaults_fit_the_body(made_up_species):
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


def test_the_curriculum_trains_each_stage_to_finite_records(made_up_species, tmp_path):
    out = tmp_path / "curriculum"
    cli.main(["--env", "tinysaur", "--curriculum", "--seed", "0", "--out", str(out), *CURRICULUM])
    with open(out / "curriculum.json") as f:
        stages = json.load(f)["stages"]
    assert [s["stage"] for s in stages] == list(made_up_species)
    for name in made_up_species:
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
        with open(out / name / "gate.json") as f:
            assert len(json.load(f)["decisions"]) == 2, name  # gated after each update
