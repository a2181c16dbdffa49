"""Seeds and sweeps trained as one vmapped program: members equal their separate runs, swept values reach their
members and are recorded, two devices give the single-device result, and the group statistics."""

import csv
import json
import os
import subprocess
import sys

import jax
import numpy as np
import pytest

import ppo_mjx
import runs
import training
from cartpole import SHORT_CONFIG, make_cartpole_env
from cli import parse_sweeps, sweep_grid
from configs import get_config

HERE = os.path.dirname(os.path.abspath(__file__))
SWEEPS = ["lr=0.0,3e-4", "reward_weights.upright=[1.0, 2.0]"]
DEFAULTS = {"lr": 3e-4, "reward_weights.upright": 1.0}  # the swept keys' values in SHORT_CONFIG


def test_sweep_grid_has_a_member_per_setting_and_seed(tmp_path):
    grid = sweep_grid(parse_sweeps(SWEEPS + ["gamma=0.9,0.99,0.999"], SHORT_CONFIG))
    assert len(grid) == 12 and grid[0] == {"lr": 0.0, "reward_weights.upright": 1.0, "gamma": 0.9}
    members = runs.group_runs(SHORT_CONFIG, 5, 2, grid, str(tmp_path))
    assert len(members) == 24 and [m.seed for m in members[:4]] == [5, 6, 5, 6]
    assert len({m.out for m in members}) == 24
    assert members[3].name == "lr=0.0-reward_weights.upright=1.0-gamma=0.99_seed6"
    hparams = training.host_hparams([m.config for m in members])
    assert hparams["lr"].shape == hparams["env_params"]["upright"].shape == (24,)
    np.testing.assert_allclose(hparams["gamma"][:6], [0.9, 0.9, 0.99, 0.99, 0.999, 0.999], rtol=1e-6)
    np.testing.assert_allclose(hparams["clip_eps"], SHORT_CONFIG["clip_eps"])  # unswept: the config's value
    assert members[-1].config["reward_weights"] == {"upright": 2.0, "termination": 0.0}
    assert SHORT_CONFIG["reward_weights"]["upright"] == 1.0 and SHORT_CONFIG["lr"] == 3e-4  # the base is untouched


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """lr in {0, 3e-4} x upright weight in {1, 2} x seeds {0, 1}: eight cartpole runs as one program."""
    out = tmp_path_factory.mktemp("sweep")
    env = make_cartpole_env(SHORT_CONFIG)
    members = runs.group_runs(SHORT_CONFIG, 0, 2, sweep_grid(parse_sweeps(SWEEPS, SHORT_CONFIG)), str(out))
    summaries = training.run_group(env, members, str(out))
    return dict(env=env, out=out, members=members, summaries=summaries)


def read_run(folder):
    with open(os.path.join(folder, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(folder, "eval.json")) as f:
        evaluation = json.load(f)
    return rows, runs.read_checkpoint(os.path.join(folder, runs.CHECKPOINT)), evaluation


def assert_same_run(folder, reference):
    """Every metric of every update, the trained policy and the evaluation agree within float32 tolerance."""
    (rows, checkpoint, evaluation), (ref_rows, ref_checkpoint, ref_evaluation) = read_run(folder), read_run(reference)
    assert len(rows) == len(ref_rows) == 6
    for row, ref in zip(rows, ref_rows):
        for column in ref:
            if column not in ("wall_s", "steps_per_s"):
                np.testing.assert_allclose(float(row[column]), float(ref[column]), rtol=1e-3, atol=1e-5,
                                           err_msg=f"{folder}: {column}")
    for name, array in ref_checkpoint["policy"].items():
        np.testing.assert_allclose(checkpoint["policy"][name], array, rtol=1e-3, atol=1e-5, err_msg=name)
    assert evaluation["episode_return"] == pytest.approx(ref_evaluation["episode_return"], rel=1e-3)


def test_seeds_vmapped_equal_separate_runs(sweep, cartpole_straight, tmp_path):
    """The members with the config's own values are the config trained with seeds 0 and 1, side by side."""
    training.run(sweep["env"], SHORT_CONFIG, 1, str(tmp_path / "seed1"))
    defaults = [m for m in sweep["members"] if m.setting == DEFAULTS]
    assert [m.seed for m in defaults] == [0, 1]
    assert_same_run(defaults[0].out, cartpole_straight)
    assert_same_run(defaults[1].out, tmp_path / "seed1")


def test_swept_values_reach_their_members_and_are_recorded(sweep):
    init = jax.jit(ppo_mjx.make_trainer(SHORT_CONFIG, sweep["env"]).init)
    hparams = ppo_mjx.hyperparameters(SHORT_CONFIG, sweep["env"].default_params)
    for member, summary in zip(sweep["members"], sweep["summaries"]):
        lr, weight = member.setting["lr"], member.setting["reward_weights.upright"]
        with open(os.path.join(member.out, "config.json")) as f:
            saved = json.load(f)
        assert (saved["lr"], saved["reward_weights"]["upright"], saved["seed"]) == (lr, weight, member.seed)
        rows, checkpoint, evaluation = read_run(member.out)
        assert evaluation == summary
        # The upright term pays its weight every step, in training and in the final evaluation.
        assert all(float(row["reward/upright"]) == pytest.approx(weight) for row in rows)
        assert summary["episode_return"] == pytest.approx(weight * summary["episode_length"])
        initial = runs.tree_to_arrays(init(jax.random.key(member.seed), hparams).train_state.params)
        moved = max(np.abs(checkpoint["policy"]["['params']" + name] - value).max() for name, value in initial.items())
        assert (moved == 0.0) if lr == 0.0 else (moved > 1e-4), (member.name, moved)


def test_group_folder_records_members_and_ranks_settings(sweep):
    out = sweep["out"]
    group = json.loads((out / "group.json").read_text())
    assert [m["name"] for m in group["members"]] == [m.name for m in sweep["members"]]
    summary = json.loads((out / "summary.json").read_text())
    assert [m["setting"] for m in summary["members"]] == [m.setting for m in sweep["members"]]
    table = summary["settings"]
    assert [row["rank"] for row in table] == [1, 2, 3, 4] and all(row["seeds"] == 2 for row in table)
    assert [row["return_iqm"] for row in table] == sorted((row["return_iqm"] for row in table), reverse=True)
    assert len((out / "summary.md").read_text().strip().splitlines()) == 2 + 2 + 4  # title, blank, header, rule, rows
    assert (out / "curves.png").read_bytes()[:4] == b"\x89PNG"


def test_sharded_over_two_devices_equals_one_device(sweep, cartpole_straight, tmp_path):
    # The suite's XLA flags, and two CPU devices.
    env = dict(os.environ, XLA_FLAGS=f"{os.environ['XLA_FLAGS']} --xla_force_host_platform_device_count=2")
    result = subprocess.run([sys.executable, os.path.join(HERE, "sharded_runs.py"), str(tmp_path)], env=env,
                            capture_output=True, text=True, timeout=900)
    assert result.returncode == 0, result.stderr[-3000:]
    for runs_on_devices in ["2 run(s) of 64 envs on 2 device(s)", "1 run(s) of 64 envs on 2 device(s)"]:
        assert runs_on_devices in result.stdout
    assert "neither 3 runs nor num_envs = 63 divide evenly over 2 devices" in result.stdout
    defaults = [m for m in sweep["members"] if m.setting == DEFAULTS]
    assert_same_run(tmp_path / "seeds" / "seed0", defaults[0].out)  # a seed per device
    assert_same_run(tmp_path / "seeds" / "seed1", defaults[1].out)
    assert_same_run(tmp_path / "envs", cartpole_straight)  # one run, its envs split over the devices


def test_iqm_and_ranking_against_hand_computed_values():
    assert runs.iqm([7, 1, 100, 2, 6, 3, 5, 4]) == 4.5  # drops 1, 2 and 7, 100
    assert runs.iqm([10, 0, 5, 1, 9]) == 5.0  # drops 0 and 10
    assert runs.iqm([3.0, 1.0]) == 2.0  # too few to drop any
    members = [dict(setting={"lr": lr}) for lr in (0.1, 0.2) for _ in range(4)]
    summaries = [dict(episode_return=r, episode_length=10.0) for r in (1, 2, 3, 100, 5, 6, 7, 8)]
    best, second = runs.rank_settings(members, summaries)
    # lr 0.1 has the higher mean (26.5) thanks to one lucky seed; the IQM ranks lr 0.2 first.
    assert best["setting"] == {"lr": 0.2} and best["return_iqm"] == 6.5 and best["rank"] == 1
    assert second["return_iqm"] == 2.5 and second["return_mean"] == 26.5
    assert second["return_std"] == pytest.approx(np.sqrt((25.5**2 + 24.5**2 + 23.5**2 + 73.5**2) / 3))
    assert np.isnan(best["success_rate"]) and "n/a" in runs.settings_markdown([best])


def snapshot(folder):
    return {path: path.read_bytes() for path in sorted(folder.rglob("*")) if path.is_file()}


def test_finished_group_resumes_as_a_no_op(sweep):
    before = snapshot(sweep["out"])
    assert training.run_group(sweep["env"], sweep["members"], str(sweep["out"]), resume=True) == sweep["summaries"]
    assert snapshot(sweep["out"]) == before


def test_resume_rebuilds_a_group_from_its_folder(tmp_path):
    config = get_config("trex_stage1")
    members = runs.group_runs(config, 3, 2, sweep_grid(parse_sweeps(["lr=1e-4,1e-3"], config)), str(tmp_path))
    runs.write_group(str(tmp_path), "trex_stage1", members)
    for member in members:
        runs.atomic_write(os.path.join(member.out, "config.json"), json.dumps(dict(member.config, env="trex_stage1",
                                                                                  seed=member.seed)))
    assert runs.read_run_settings(str(tmp_path)) == ("trex_stage1", members, str(tmp_path))
    assert [m.config["lr"] for m in members] == [1e-4, 1e-4, 1e-3, 1e-3] and [m.seed for m in members] == [3, 4, 3, 4]
