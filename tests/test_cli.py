"""The command lines end to end at a tiny budget, and bad input: one clear line, exit code 2, no traceback, nothing
already written overwritten."""

import csv
import json
import os
import shutil
import subprocess
import sys

import imageio.v3 as iio
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cli(script, *args, env=None):
    return subprocess.run([sys.executable, os.path.join(ROOT, script), *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900, env=env)


def assert_one_line_error(result, message):
    assert result.returncode == 2, result.stderr[-3000:]
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("args, message", [
    (["--env", "trex_stage9"], "unknown env 'trex_stage9'; valid envs: brachiosaurus_stage1, brachiosaurus_stage2"),
    (["--env", "trex_stage1", "--curriculum"], "no stage configs for 'trex_stage1' (expected trex_stage1_stage1, ...); "
                                               "species with a curriculum: brachiosaurus, trex, velociraptor"),
    (["--env", "stegosaurus", "--curriculum"], "no stage configs for 'stegosaurus'"),
    (["--curriculum"], "--curriculum needs --env SPECIES, e.g. --env trex"),
    (["--env", "trex", "--curriculum", "--num-seeds", "2", "--resume", ROOT],
     "--curriculum trains one run stage by stage; drop --num-seeds, --resume"),
    (["--env", "trex", "--curriculum", "--set", "learning_rate=0.1"], "no stage of 'trex' has config key 'learning_rate'"),
    (["--set", "learning_rate=0.1"], "unknown config key 'learning_rate'"),
    (["--set", "reward_weights.nope=1.0"], "unknown config key 'reward_weights.nope'"),
    (["--set", "lr=fast"], "config key 'lr' expects float, got 'fast'"),
    (["--set", "num_envs=2.5"], "config key 'num_envs' expects int, got 2.5"),
    (["--set", "lr"], "override 'lr' is not KEY=VALUE"),
    (["--num-envs", "10", "--set", "num_minibatches=3"], "is not divisible by num_minibatches = 3"),
    (["--resume", "/nonexistent/run"], "/nonexistent/run is not a run or group folder with readable config.json"),
    (["--resume", ROOT, "--seed", "1"], "--resume continues runs with their saved configs; drop --seed"),
    (["--resume", ROOT, "--num-seeds", "2", "--sweep", "lr=1e-4,1e-3"],
     "--resume continues runs with their saved configs; drop --num-seeds, --sweep"),
    (["--num-seeds", "0"], "--num-seeds must be at least 1, got 0"),
    (["--sweep", "num_envs=64,128"], "cannot sweep 'num_envs': it fixes array shapes or program structure"),
    (["--sweep", "actor_hidden=64,128"], "cannot sweep 'actor_hidden'"),
    (["--sweep", "anneal_lr=0,1"], "cannot sweep 'anneal_lr'"),
    (["--sweep", "lr=1e-4,fast"], "sweep 'lr=1e-4,fast': 'fast' is not a finite number"),
    (["--sweep", "lr=1e-4,,1e-3"], "sweep 'lr=1e-4,,1e-3': '' is not a finite number"),
    (["--sweep", "lr="], "sweep 'lr=': '' is not a finite number"),
    (["--sweep", "lr=1e-4,True"], "'True' is not a finite number"),
    (["--sweep", "gamma=0.9,1e999"], "'1e999' is not a finite number"),
    (["--sweep", "lr=1e-4,1e-4"], "sweep 'lr=1e-4,1e-4' repeats a value"),
    (["--sweep", "lr"], "sweep 'lr' is not KEY=V1,V2,..."),
    (["--sweep", "learning_rate=1e-4,1e-3"], "unknown config key 'learning_rate' in --sweep"),
    (["--sweep", "lr=1e-4,1e-3", "--sweep", "lr=0.1"], "--sweep lists 'lr' twice"),
])
def test_bad_input_gives_one_line_and_exit_2(args, message):
    assert_one_line_error(cli("ppo_mjx.py", *args), message)


@pytest.mark.parametrize("args, message", [
    ([], "give a run folder or checkpoint, or --zero-action --env NAME"),
    (["/nonexistent/run"], "no checkpoint at /nonexistent/run"),
    (["--zero-action"], "--zero-action takes --env and no checkpoint"),
    (["--zero-action", "--env", "trex_stage1", "--video", "trex.avi"], "the name must end in .mp4 or .gif"),
])
def test_evaluate_bad_input_gives_one_line_and_exit_2(args, message):
    assert_one_line_error(cli("evaluate.py", *args), message)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    """A tiny T-Rex training run through the CLI, logging to Weights & Biases in offline mode."""
    out = tmp_path_factory.mktemp("cli") / "run"
    env = dict(os.environ, WANDB_MODE="offline", WANDB_SILENT="true")
    result = cli("ppo_mjx.py", "--env", "trex_stage1", "--seed", "3", "--num-envs", "8", "--total-timesteps", "960",
                 "--set", "num_steps=20", "--set", "num_minibatches=4", "--set", "eval_episodes=4",
                 "--set", "episode_length=30", "--set", "log_every=2", "--set", "checkpoint_every=4",
                 "--out", str(out), "--wandb", env=env)
    assert result.returncode == 0, result.stderr[-3000:]
    return out, result.stdout


def test_tiny_training_run_writes_outputs(tiny_run):
    out, stdout = tiny_run
    assert "update 6/6" in stdout and "steps/s" in stdout and "ETA" in stdout
    config = json.loads((out / "config.json").read_text())
    assert config["num_envs"] == 8 and config["seed"] == 3 and config["env"] == "trex_stage1"
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert [int(r["update"]) for r in rows] == [1, 2, 3, 4, 5, 6] and int(rows[-1]["env_steps"]) == 960
    for key in ["episode_return", "approx_kl", "clip_fraction", "explained_variance", "nan_resets", "steps_per_s",
                "wall_s", "reward/upright_height", "reward/termination", "pelvis_height", "forward_speed"]:
        assert key in rows[0]
    evaluation = json.loads((out / "eval.json").read_text())
    assert evaluation["episodes"] == 4 and 0 < evaluation["episode_length"] <= 30
    assert 0.0 <= evaluation["success_rate"] <= 1.0
    assert (out / "curves.png").read_bytes()[:4] == b"\x89PNG"
    with open(out / "checkpoint.msgpack", "rb") as f:
        assert f.read(1)  # a checkpoint exists; its contents are tested in test_runs.py
    offline = [d for d in os.listdir(out / "wandb") if d.startswith("offline-run-")]
    assert offline and any(f.endswith(".wandb") for f in os.listdir(out / "wandb" / offline[0]))


def test_resume_of_a_finished_run_does_nothing(tiny_run):
    out, _ = tiny_run
    before = snapshot(out)
    result = cli("ppo_mjx.py", "--resume", str(out))
    assert result.returncode == 0, result.stderr[-3000:]
    assert "already trained and evaluated" in result.stdout
    assert snapshot(out) == before


@pytest.fixture
def damaged_copy(tiny_run, tmp_path):
    """A copy of the tiny run folder whose checkpoint is cut in half."""
    copy = tmp_path / "run"
    shutil.copytree(tiny_run[0], copy)
    data = (copy / "checkpoint.msgpack").read_bytes()
    (copy / "checkpoint.msgpack").write_bytes(data[: len(data) // 2])
    return copy


def snapshot(folder):
    return {name: (folder / name).read_bytes() for name in sorted(os.listdir(folder)) if (folder / name).is_file()}


def test_resume_from_a_corrupted_checkpoint_exits_2_and_overwrites_nothing(damaged_copy):
    before = snapshot(damaged_copy)
    assert_one_line_error(cli("ppo_mjx.py", "--resume", str(damaged_copy)), "is not a readable checkpoint")
    assert snapshot(damaged_copy) == before


def test_evaluate_refuses_corrupted_and_mismatched_checkpoints(tiny_run, damaged_copy):
    before = snapshot(damaged_copy)
    assert_one_line_error(cli("evaluate.py", str(damaged_copy)), "is not a readable checkpoint")
    assert snapshot(damaged_copy) == before
    out = tiny_run[0]
    before = snapshot(out)
    assert_one_line_error(cli("evaluate.py", str(out), "--set", "actor_hidden=[64,64]"),
                          "(env 'trex_stage1', actor_hidden (256, 256), critic_hidden (256, 256)) does not fit env "
                          "'trex_stage1': ['params']['params']['Dense_0']['bias'] is (256,) float32 in the "
                          "checkpoint, (64,) float32 expected")
    assert snapshot(out) == before


def test_evaluate_in_plain_mujoco_writes_metrics_and_a_video(tiny_run, tmp_path):
    out = tiny_run[0]
    video = tmp_path / "trex.gif"
    result = cli("evaluate.py", str(out), "--episodes", "1", "--physics", "mujoco", "--video", str(video),
                 "--width", "160", "--height", "128")
    assert result.returncode == 0, result.stderr[-3000:]
    evaluation = json.loads((out / "eval_mujoco.json").read_text())
    assert evaluation["physics"] == "mujoco" and evaluation["episodes"] == 1 and evaluation["policy"].endswith("6")
    assert 0 < evaluation["episode_length"] <= 30
    frames = iio.imread(video, index=None)
    # The episode filmed every 2nd control step (25 fps at 50 Hz control).
    assert frames.shape == ((int(evaluation["episode_length"]) + 1) // 2, 128, 160, 3)
