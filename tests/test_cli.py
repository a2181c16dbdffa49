"""The command lines end to end at a tiny budget, and bad input: one clear line, exit code 2, no traceback, nothing
already written overwritten. `main([...])` runs in this process (sharing compiled programs); a subprocess only where
the process boundary is what is tested."""

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import sys

import imageio.v3 as iio
import jax
import pytest

import cli
import envs
import evaluate
import play
import tinysaur
from configs import CONFIGS, CPU_DEFAULTS, species_names

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SPECIES = species_names()
# A tiny run of the made-up species' stage 1 (tests/tinysaur.py), as tests/test_new_species.py's curriculum trains
# it: 2 updates of 4 envs x 8 steps, 16-step episodes.
TINY = ["--env", "tinysaur_stage1", *tinysaur.TINY]


def run_main(main, args, capsys):
    """(exit code, stdout, stderr) of `main(args)` in this process."""
    try:
        main(args)
        code = 0
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_line_error(result, message):
    code, _, err = result
    assert code == 2, err[-3000:]
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], err
    assert "Traceback" not in err


@pytest.mark.parametrize("args, message", [
    (["--env", "trex_stage9"], f"unknown env 'trex_stage9'; valid envs: {', '.join(sorted(CONFIGS)[:2])}"),
    (["--env", "trex_stage1", "--curriculum"], "no stage configs for 'trex_stage1' (expected trex_stage1_stage1, ...); "
                                               f"species with a curriculum: {', '.join(SPECIES)}"),
    (["--env", "stegosaurus", "--curriculum"], "no stage configs for 'stegosaurus'"),
    (["--curriculum"], "--curriculum needs --env SPECIES, e.g. --env trex"),
    (["--env", "trex", "--curriculum", "--num-seeds", "2", "--distributed"],
     "--curriculum trains one run stage by stage; drop --num-seeds, --distributed"),
    (["--env", "trex", "--curriculum", "--resume", ROOT, "--seed", "1"],
     "--resume continues runs with their saved configs; drop --seed"),
    (["--env", "trex", "--curriculum", "--set", "learning_rate=0.1"], "no stage of 'trex' has config key 'learning_rate'"),
    (["--set", "learning_rate=0.1"], "unknown config key 'learning_rate'"),
    (["--set", "reward_weights.nope=1.0"], "unknown config key 'reward_weights.nope'"),
    (["--set", "lr=fast"], "config key 'lr' expects float, got 'fast'"),
    (["--set", "mjx_impl=cpp"], "mjx_impl 'cpp' is not one of: jax, warp"),
    (["--set", "num_envs=2.5"], "config key 'num_envs' expects int, got 2.5"),
    (["--set", "lr"], "override 'lr' is not KEY=VALUE"),
    (["--num-envs", "10", "--set", "num_minibatches=3"], "is not divisible by num_minibatches = 3"),
    (["--resume", "/nonexistent/run"], "/nonexistent/run is not a run, group or curriculum folder with readable config.json"),
    (["--resume", ROOT, "--seed", "1"], "--resume continues runs with their saved configs; drop --seed"),
    (["--resume", ROOT, "--num-seeds", "2", "--sweep", "lr=1e-4,1e-3"],
     "--resume continues runs with their saved configs; drop --num-seeds, --sweep"),
    (["--num-seeds", "0"], "--num-seeds must be at least 1, got 0"),
    (["--policy-only", "/nonexistent/run"], "--policy-only: /nonexistent/run is not a folder"),
    (["--sweep", "num_envs=64,128"], "cannot sweep 'num_envs': it fixes array shapes or program structure"),
    (["--sweep", "actor_hidden=64,128"], "cannot sweep 'actor_hidden'"),
    (["--sweep", "anneal_lr=0,1"], "cannot sweep 'anneal_lr'"),
    (["--set", "desired_kl=0.01"], "desired_kl = 0.01 adapts the learning rate, which anneal_lr = True would decay"),
    (["--set", "desired_kl=-0.01"], "desired_kl = -0.01 is negative"),
    (["--set", "symmetry_loss=-1.0"], "symmetry_loss = -1.0 is negative"),
    (["--set", "symmetry_ratio_from_image=True"],
     "symmetry_ratio_from_image sets the ratios of mirror images: symmetry_augmentation=True"),
    (["--set", "symmetry_augmentation=True", "--set", "privileged_critic=True"],
     "symmetry_augmentation reflects the policy's observation alone: privileged_critic=False"),
    (["--sweep", "desired_kl=0.01,0.02"], "cannot sweep 'desired_kl'"),
    (["--sweep", "lr=1e-4,fast"], "sweep 'lr=1e-4,fast': 'fast' is not a finite number"),
    (["--sweep", "lr=1e-4,,1e-3"], "sweep 'lr=1e-4,,1e-3': '' is not a finite number"),
    (["--sweep", "lr="], "sweep 'lr=': '' is not a finite number"),
    (["--sweep", "lr=1e-4,True"], "'True' is not a finite number"),
    (["--sweep", "gamma=0.9,1e999"], "'1e999' is not a finite number"),
    (["--sweep", "lr=1e-4,1e-4"], "sweep 'lr=1e-4,1e-4' repeats a value"),
    (["--sweep", "lr"], "sweep 'lr' is not KEY=V1,V2,..."),
    (["--sweep", "learning_rate=1e-4,1e-3"], "unknown config key 'learning_rate' in --sweep"),
    (["--sweep", "lr=1e-4,1e-3", "--sweep", "lr=0.1"], "--sweep lists 'lr' twice"),
    (["--set", "model=no_such_dinosaur.xml"], "no_such_dinosaur.xml"),
    (["--env", "velociraptor_stage1", "--set", "standing_height=0.8"],
     "velociraptor.xml: standing_height 0.8 m must be between 80% and 100% of the home pelvis height"),
    (["--env", "trex", "--curriculum", "--set", "tip_sites=['jaw_tipp']"], "trex.xml: "),
    # ranges (randomization.py), refused before anything compiles
    (["--set", "push_speed=(0.6, 0.2)"], "config key 'push_speed': range (0.6, 0.2) has low above high"),
    (["--set", "push_interval=(50, 20)"], "config key 'push_interval': range (50, 20) has low above high"),
    (["--set", "push_interval=(0, 20)"], "push_speed must be at least 0 m/s and push_interval at least 1 control step"),
    (["--set", "push_speed=(-0.1, 0.2)"], "push_speed must be at least 0 m/s"),
    (["--set", "push_speed=fast"],
     "config key 'push_speed' expects numbers: one, a (low, high) range or 'scaled', got 'fast'"),
    (["--set", "randomize.kp=(1.1, 0.9)"], "config key 'randomize.kp': range (1.1, 0.9) has low above high"),
    (["--set", "randomize.friction=(-0.1, 1.0)"], "randomize.friction: -0.1 is below 0, the least sliding friction"),
    (["--set", "randomize.body_mass=(-0.5, 1.1)"], "randomize.body_mass: -0.5 is below 0.001, the least scale"),
    (["--set", "randomize.payload=(-30.0, 4.0)"],
     "randomize.payload: -30.0 kg leaves body 'pelvis' (22.00 kg) with no"),
    (["--set", "randomize.payload_body='wing'"], "randomize.payload_body: the model has no body 'wing'"),
    (["--set", "randomize.obs_noise.smell=0.1"], "unknown config key 'randomize.obs_noise.smell'"),
    (["--set", "randomize.obs_noise.gravity=-0.1"], "randomize.obs_noise.gravity: negative noise -0.1"),
    (["--set", "contact_weight_share=-0.5"],
     "contact_weight_share: 0 (binary contacts) or a share of the body's weight above 0, got -0.5"),
    (["--set", "randomize.action_delay=(0, 3)"], "randomize.action_delay: at most 2 control steps"),
    (["--set", "randomize.action_delay=(-1, 1)"], "randomize.action_delay: -1 is below 0, the least control steps"),
    (["--set", "randomize.action_delay=0.5"],
     "config key 'randomize.action_delay' expects whole numbers: one, a (low, high) range or None, got 0.5"),
    (["--env", "trex_stage2", "--set", "command.forward=(2.0, 1.0)"],
     "config key 'command.forward': range (2.0, 1.0) has low above high"),
    (["--env", "trex_stage2", "--set", "command.standing_share=1.5"], "command.standing_share: a share from 0 to 1"),
    (["--env", "trex_stage2", "--set", "command.backward_share=-0.1"], "command.backward_share: a share from 0 to 1"),
    (["--env", "trex_stage2", "--set", "command.backward_share=0.3", "--set", "command.forward=(0.0, 1.5)"],
     "command.backward_share: the forward range (0, 1.5) has no speed below 0"),
    (["--env", "trex_stage2", "--set", "command.interval=(0, 10)"],
     "command.interval: a (low, high) range of control steps from 1 up, got (0, 10)"),
    (["--env", "trex_stage2", "--set", "command.yaw_rate=fast"], "config key 'command.yaw_rate' expects numbers"),
    (["--env", "trex_stage1", "--set", "command.forward=1.0"], "unknown config key 'command.forward'"),
    (["--set", "eval_actions=best"], "eval_actions 'best' is not one of: mean, sampled"),
    (["--set", "action_noise_correlation=1.0"], "action_noise_correlation = 1.0 is not in [0, 1)"),
    (["--set", "action_noise_correlation=-0.5"], "action_noise_correlation = -0.5 is not in [0, 1)"),
])
def test_bad_input_gives_one_line_and_exit_2(args, message, capsys):
    assert_one_line_error(run_main(cli.main, args, capsys), message)


@pytest.mark.skipif(jax.default_backend() == "gpu" and envs.mjx_warp.WARP_INSTALLED,
                    reason="MuJoCo Warp can run on this machine")
@pytest.mark.parametrize("args", [["--set", "mjx_impl=warp"],
                                  ["--env", "brachiosaurus", "--curriculum", "--set", "mjx_impl=warp"]])
def test_warp_physics_is_refused_where_it_cannot_run(args, tmp_path, capsys):
    out = tmp_path / "run"
    assert_one_line_error(run_main(cli.main, [*args, "--out", str(out)], capsys), "mjx_impl 'warp' needs ")
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    ([], "give a run folder or checkpoint, or --zero-action --env NAME"),
    (["/nonexistent/run"], "no checkpoint at /nonexistent/run"),
    (["--zero-action"], "--zero-action takes --env and no checkpoint"),
    (["--zero-action", "--env", "trex_stage1", "--video", "trex.avi"], "the name must end in .mp4 or .gif"),
])
def test_evaluate_bad_input_gives_one_line_and_exit_2(args, message, capsys):
    assert_one_line_error(run_main(evaluate.main, args, capsys), message)


def test_viewer_without_a_display_is_one_line(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    assert_one_line_error(run_main(evaluate.main, ["--zero-action", "--env", "trex_stage1", "--viewer"], capsys),
                          "--viewer needs a display (DISPLAY is not set); use --video instead")
    assert_one_line_error(run_main(play.main, ["policy.onnx", "--viewer"], capsys),
                          "--viewer needs a display (DISPLAY is not set); use --episodes and --video instead")


def script(name, *args, env=None):
    """`python <name> args...` in a new process: (exit code, stdout, stderr)."""
    result = subprocess.run([sys.executable, os.path.join(ROOT, name), *args], capture_output=True, text=True,
                            cwd=ROOT, timeout=600, env=env)
    return result.returncode, result.stdout, result.stderr


def test_scripts_hand_bad_input_to_the_cli_and_exit_2():
    """`python ppo_mjx.py` goes through cli.main; the process prints one line and exits 2, with no XLA log lines."""
    assert_one_line_error(script("ppo_mjx.py", "--env", "trex_stage9"), "unknown env 'trex_stage9'")
    assert_one_line_error(script("evaluate.py", "--zero-action"), "--zero-action takes --env and no checkpoint")


def test_programs_read_back_from_the_compilation_cache_log_nothing(tmp_path):
    """A program compiled by one process and read back from the cache by the next: no XLA error line (on AVX-512
    CPUs the loader used to flag every cached program as compiled for another machine, jax-ml/jax#38445)."""
    program = ("import sys; sys.path.insert(0, sys.argv[1]); import startup; startup.before_jax(); import training; "
               "training.enable_compilation_cache(); import jax, jax.numpy as jnp; "
               "jax.config.update('jax_compilation_cache_dir', sys.argv[2]); "
               "jax.config.update('jax_persistent_cache_min_compile_time_secs', 0); "
               "f = jax.jit(lambda x, i: x.at[i].add(x[i] * 2.0).sum()); print(f(jnp.ones(100), jnp.arange(10)))")
    results = [subprocess.run([sys.executable, "-c", program, ROOT, str(tmp_path)], capture_output=True, text=True,
                              timeout=300) for _ in range(2)]
    assert [r.stdout.strip() for r in results] == ["120.0", "120.0"], results[-1].stderr[-2000:]
    assert os.listdir(tmp_path)  # the first process wrote the program, the second read it
    for result in results:  # glog error lines: E, then the date
        assert not re.search(r"^E\d{4} |cpu_aot_loader", result.stderr, re.MULTILINE), result.stderr


def test_a_video_without_a_renderer_is_one_line():
    """Without OSMesa or EGL evaluate.py still imports (metrics need no renderer); a video is refused in one line."""
    result = script("evaluate.py", "--zero-action", "--env", "trex_stage1", "--video", "trex.gif",
                    env=dict(os.environ, MUJOCO_GL="disable"))
    assert_one_line_error(result, "--video needs OpenGL for headless rendering: install OSMesa")


@pytest.fixture(scope="module")
def tiny_run(made_up_species, tmp_path_factory):
    """A tiny training run through the CLI, logging to Weights & Biases in offline mode."""
    out = tmp_path_factory.mktemp("cli") / "run"
    stdout = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(stdout):
        patch.setenv("WANDB_MODE", "offline")
        patch.setenv("WANDB_SILENT", "true")
        cli.main([*TINY, "--seed", "3", "--out", str(out), "--wandb"])
    return out, stdout.getvalue()


def test_tiny_training_run_writes_outputs(tiny_run):
    out, stdout = tiny_run
    assert "update 2/2" in stdout and "steps/s" in stdout and "ETA" in stdout
    assert "compiling the training program" in stdout
    config = json.loads((out / "config.json").read_text())
    assert config["num_envs"] == 4 and config["seed"] == 3 and config["env"] == "tinysaur_stage1"
    rows = list(csv.DictReader((out / "metrics.csv").open()))
    assert [int(r["update"]) for r in rows] == [1, 2] and int(rows[-1]["env_steps"]) == 64
    for key in ["episode_return", "approx_kl", "clip_fraction", "explained_variance", "nan_resets", "steps_per_s",
                "wall_s", "reward/upright_height", "reward/termination", "pelvis_height", "forward_speed"]:
        assert key in rows[0]
    evaluation = json.loads((out / "eval.json").read_text())
    assert evaluation["episodes"] == 2 and 0 < evaluation["episode_length"] <= 16
    assert 0.0 <= evaluation["success_rate"] <= 1.0
    assert (out / "curves.png").read_bytes()[:4] == b"\x89PNG"
    with open(out / "checkpoint.msgpack", "rb") as f:
        assert f.read(1)  # a checkpoint exists; its contents are tested in test_runs.py
    offline = [d for d in os.listdir(out / "wandb") if d.startswith("offline-run-")]
    assert offline and any(f.endswith(".wandb") for f in os.listdir(out / "wandb" / offline[0]))


def test_cpu_defaults_are_announced_recorded_and_overridden_by_flags(tiny_run):
    """On this CPU the keys no flag set take CPU_DEFAULTS (one line says so); --num-envs and --set win."""
    out, stdout = tiny_run
    sized = [line for line in stdout.splitlines() if line.startswith("no GPU found")]
    assert len(sized) == 1 and "gate.eval_every=40" in sized[0] and "num_envs" not in sized[0]
    config = json.loads((out / "config.json").read_text())
    assert config["gate"]["eval_every"] == CPU_DEFAULTS["gate.eval_every"]
    assert (config["num_envs"], config["total_timesteps"], config["eval_episodes"]) == (4, 64, 2)  # the flags


def test_resume_of_a_finished_run_does_nothing(tiny_run, capsys):
    out, _ = tiny_run
    before = snapshot(out)
    code, stdout, err = run_main(cli.main, ["--resume", str(out)], capsys)
    assert code == 0, err[-3000:]
    assert "already trained and evaluated" in stdout and "no GPU found" not in stdout  # resume keeps its config
    assert snapshot(out) == before


@pytest.mark.parametrize("args, then", [
    (TINY, "Nothing was trained yet: run the same command again"),
    (["--env", "tinysaur", "--curriculum", *TINY[2:]], "Continue with: python ppo_mjx.py --resume"),
])
def test_ctrl_c_while_compiling_is_one_line_and_exit_130(made_up_species, args, then, tmp_path, monkeypatch, capsys):
    def ctrl_c(*_):
        raise KeyboardInterrupt
    monkeypatch.setattr(cli.training, "init_runs", ctrl_c)  # the first program a run compiles
    code, stdout, err = run_main(cli.main, [*args, "--out", str(tmp_path / "run")], capsys)
    assert code == 130 and err.strip() == "stopped by Ctrl-C", err[-3000:]
    assert stdout.strip().splitlines()[-1].startswith(then)


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


def test_resume_from_a_corrupted_checkpoint_exits_2_and_overwrites_nothing(damaged_copy, capsys):
    before = snapshot(damaged_copy)
    assert_one_line_error(run_main(cli.main, ["--resume", str(damaged_copy)], capsys), "is not a readable checkpoint")
    assert snapshot(damaged_copy) == before


def test_evaluate_refuses_corrupted_and_mismatched_checkpoints(tiny_run, damaged_copy, capsys):
    before = snapshot(damaged_copy)
    assert_one_line_error(run_main(evaluate.main, [str(damaged_copy)], capsys), "is not a readable checkpoint")
    assert snapshot(damaged_copy) == before
    out = tiny_run[0]
    before = snapshot(out)
    assert_one_line_error(run_main(evaluate.main, [str(out), "--set", "actor_hidden=[64,64]"], capsys),
                          "(env 'tinysaur_stage1', actor_hidden (16, 16), critic_hidden (16, 16)) does not fit env "
                          "'tinysaur_stage1': ['params']['params']['Dense_0']['bias'] is (16,) float32 in the "
                          "checkpoint, (64,) float32 expected")
    assert snapshot(out) == before


def test_evaluate_in_plain_mujoco_writes_metrics_and_a_video(tiny_run, tmp_path, capsys):
    out = tiny_run[0]
    video = tmp_path / "tinysaur.gif"
    code, _, err = run_main(evaluate.main, [str(out), "--episodes", "1", "--physics", "mujoco", "--video", str(video),
                                            "--width", "160", "--height", "128"], capsys)
    assert code == 0, err[-3000:]
    evaluation = json.loads((out / "eval_mujoco_mean.json").read_text())
    assert evaluation["physics"] == "mujoco" and evaluation["episodes"] == 1
    assert evaluation["policy"] == "checkpoint at update 2, mean actions"
    assert 0 < evaluation["episode_length"] <= 16
    frames = iio.imread(video, index=None)
    # The episode filmed every 2nd control step (25 fps at 50 Hz control).
    assert frames.shape == ((int(evaluation["episode_length"]) + 1) // 2, 128, 160, 3)
