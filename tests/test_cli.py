"""The command line end to end at a tiny budget, and bad input: one clear line, exit code 2, no traceback."""

import csv
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(*args):
    return subprocess.run([sys.executable, os.path.join(ROOT, "ppo_mjx.py"), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)


@pytest.mark.parametrize("args, message", [
    (["--env", "trex_stage9"], "unknown env 'trex_stage9'; valid envs: trex_stage1"),
    (["--set", "learning_rate=0.1"], "unknown config key 'learning_rate'"),
    (["--set", "reward_weights.nope=1.0"], "unknown config key 'reward_weights.nope'"),
    (["--set", "lr=fast"], "config key 'lr' expects float, got 'fast'"),
    (["--set", "num_envs=2.5"], "config key 'num_envs' expects int, got 2.5"),
    (["--set", "lr"], "override 'lr' is not KEY=VALUE"),
    (["--num-envs", "10", "--set", "num_minibatches=3"], "is not divisible by num_minibatches = 3"),
])
def test_bad_input_gives_one_line_and_exit_2(args, message):
    result = cli(*args)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_tiny_training_run_writes_outputs(tmp_path):
    out = tmp_path / "run"
    result = cli("--env", "trex_stage1", "--seed", "3", "--num-envs", "8", "--total-timesteps", "480",
                 "--set", "num_steps=20", "--set", "num_minibatches=4", "--set", "eval_episodes=4",
                 "--set", "episode_length=30", "--set", "log_every=1", "--out", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "update 3/3" in result.stdout and "steps/s" in result.stdout and "ETA" in result.stdout
    config = json.loads((out / "config.json").read_text())
    assert config["num_envs"] == 8 and config["seed"] == 3 and config["env"] == "trex_stage1"
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert len(rows) == 3 and int(rows[-1]["env_steps"]) == 480
    for key in ["episode_return", "approx_kl", "clip_fraction", "explained_variance", "nan_resets",
                "reward/upright_height", "reward/termination", "pelvis_height"]:
        assert key in rows[0]
    evaluation = json.loads((out / "eval.json").read_text())
    assert evaluation["episodes"] == 4 and 0 < evaluation["episode_length"] <= 30
    assert (out / "params.msgpack").stat().st_size > 10_000
