"""Policies out of JAX: the committed ONNX exports against the JAX mean action on observations of real rollouts, the
NumPy observation against the env's along a plain-MuJoCo rollout, play.py against evaluate.py, and bad input."""

import functools
import json
import os
import shutil
import subprocess
import sys

import imageio.v3 as iio
import jax
import mujoco
import numpy as np
import pytest
from mujoco import mjx

import envs
import export
import play
import ppo_mjx
import randomization
import runs
import tasks
import training
from benchmarks.play_vs_evaluate import replay_evaluation
from configs import from_saved, get_config
from test_species import SPECIES

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGES = [(species, stage) for species in SPECIES for stage in (1, 2, 3)]


def committed(species, stage):
    return os.path.join(ROOT, "results", f"{species}_curriculum_cpu_seed0", f"{species}_stage{stage}")


@functools.cache
def committed_stage(species, stage, **settings):
    """(checkpoint, config, env) of the committed policy: its checkpoint, the config it was trained with, and that
    config's env with observation noise off (play.observe adds none) and `settings` applied, built once for every test
    of the stage here."""
    checkpoint = runs.read_checkpoint(os.path.join(committed(species, stage), runs.CHECKPOINT))
    env_name, _, saved = from_saved(checkpoint["config"])
    config = get_config(env_name, saved)
    no_noise = {f"randomize.obs_noise.{group}": 0.0 for group in config["randomize"]["obs_noise"]}
    return checkpoint, config, envs.env_from_config(env_name, get_config(env_name, saved | no_noise | settings))


class Replay:
    """An onnxruntime session's stand-in that answers each call with the next of `actions`."""

    def __init__(self, actions):
        self.actions = iter(actions)

    def run(self, outputs, feeds):
        return [next(self.actions)[None]]


def rollout_observations(exported, steps, seed=0):
    """Observations of `exported`'s policy running in plain MuJoCo (play.py's loop), episodes restarting as they end."""
    draws, data = play.numpy_draws(np.random.default_rng(seed)), mujoco.MjData(exported.mj_model)
    (obs, episode), observations, action = play.reset(exported, data, draws), [], np.zeros(exported.mj_model.nu)
    for time_step in range(steps):
        observations.append(obs)
        action = play.applied(exported, obs, action)
        episode, _ = play.control_step(exported, data, action, draws, time_step, episode)
        obs = play.observe(exported, data, action, draws.noise(time_step + 1))
        if exported.task.is_terminated(data) or exported.task.is_success(data):
            (obs, episode), action = play.reset(exported, data, draws), np.zeros(exported.mj_model.nu)
    return np.array(observations, np.float32)


@pytest.mark.parametrize("species,stage", STAGES)
def test_committed_onnx_equals_the_jax_mean_action_on_real_observations(species, stage):
    folder = committed(species, stage)
    exported = play.load_exported(folder)
    path = os.path.join(folder, runs.CHECKPOINT)
    assert exported.spec["checkpoint"]["sha256"] == play.sha256_of(path)  # the export is of the committed policy
    checkpoint, config, env = committed_stage(species, stage)
    policy = training.load_policy(path, checkpoint, config, env)
    obs = rollout_observations(exported, 150)
    jax_action = np.asarray(jax.jit(ppo_mjx.policy_mean(config, env.action_size, **policy))(obs))
    onnx_action = exported.session.run(["action"], {"obs": obs})[0]  # the whole batch at once: the batch is free
    assert onnx_action.shape == (len(obs), env.action_size)
    np.testing.assert_allclose(onnx_action, jax_action, rtol=0, atol=1e-5)
    assert np.abs(jax_action).max() > 0.1  # a policy that acts, not a constant


def test_export_writes_a_committed_stage_and_play_runs_it(tmp_path):
    for stage in (1, 3):
        export.main([committed("trex", stage), "--out", str(tmp_path / f"trex_stage{stage}")])
        spec = json.loads((tmp_path / f"trex_stage{stage}" / "policy.json").read_text())
        assert spec["env"] == f"trex_stage{stage}" and spec["species"] == "trex" and spec["stage"] == stage
        assert spec["observation"]["size"] == 62 and len(spec["action"]["actuators"]) == spec["action"]["size"] == 14
        assert spec["action"]["smoothing"] == spec["config"]["action_smoothing"] == 0.0  # saved before it: none
        groups = spec["observation"]["groups"]
        # the command too, zero in stages 1 and 3; the heading error is off by default
        assert [g["name"] for g in groups] == [name for name in tasks.OBSERVATION_GROUPS if name != "heading_error"]
        assert all(a["stop"] == b["start"] for a, b in zip(groups, groups[1:]))
    summary, _ = play.play_episodes(play.load_exported(str(tmp_path / "trex_stage3")), 1, seed=3)
    assert summary["episodes"] == 1 and summary["episode_length"] > 0


@pytest.mark.parametrize("species,stage,settings", [(*stage, {}) for stage in STAGES] + [
    ("velociraptor", 2, dict(action_smoothing=0.3)), ("velociraptor", 2, dict(observe_heading=True)),
    ("velociraptor", 1, dict(observe_contacts=False)), ("velociraptor", 1, dict(contact_weight_share=0.5))])
def test_play_observes_what_the_env_step_returns_along_a_randomized_rollout(species, stage, settings):
    """One observation in training and deployment: along an MJX rollout of a committed policy's env (randomized model,
    delays, offsets and pushes; random actions beyond [-1, 1]; observation noise off, which test_randomization
    replays; `settings`: actions low-passed, the heading error observed, no contacts observed or contacts scaled by the
    body's weight), play.py's NumPy observation of each state the env's `step` (or reset) returns, as MuJoCo data
    (mjx.get_data), equals the `obs` that step handed the policy; so do the action applied (play.applied, against a
    NumPy moving average), the controls, reward terms and measures of each transition."""
    _, _, env = committed_stage(species, stage, **settings)
    smoothing = settings.get("action_smoothing", 0.0)
    steps = 30
    actions = np.random.default_rng(7).uniform(-1.3, 1.3, (steps, env.action_size)).astype(np.float32)
    exported = play.exported_policy({}, env.config, env.mj_model, Replay(actions))
    task, weights = exported.task, env.config["reward_weights"]

    # The env's reset and step compiled apart and stepped from Python: one scanned rollout compiles longer.
    step = jax.jit(env.step)
    rollout = [jax.jit(env.reset)(jax.random.key(3))]
    for action in actions:
        rollout.append(step(rollout[-1], action))
    first, *states = jax.device_get(rollout)
    previous = first
    for t in range(-1, steps):
        state = first if t < 0 else states[t]
        data = mjx.get_data(env.mj_model, state.data)
        np.testing.assert_allclose(play.observe(exported, data, state.prev_action, None), state.obs, rtol=1e-5,
                                   atol=1e-5, err_msg=f"step {t + 1}")
        if t < 0:
            continue
        action = play.applied(exported, None, previous.prev_action)
        expected = (1 - smoothing) * np.clip(actions[t], -1.0, 1.0) + smoothing * previous.prev_action
        np.testing.assert_allclose(action, expected, rtol=0, atol=1e-6)
        if not (state.terminated or state.truncated):
            np.testing.assert_allclose(state.prev_action, action, rtol=0, atol=1e-6)
            ctrl, _ = randomization.controls(task.action_to_ctrl, action, previous.episode, np)
            np.testing.assert_allclose(ctrl, data.ctrl, rtol=1e-6, atol=1e-6)
            for k, v in task.reward_terms(data, action, previous.prev_action).items():
                np.testing.assert_allclose(weights[k] * v, state.info[f"reward/{k}"], rtol=1e-4, atol=1e-4, err_msg=k)
            for k, v in task.measure(data).items():
                np.testing.assert_allclose(v, state.info[k], rtol=1e-5, atol=1e-5, err_msg=k)
        previous = state
    assert sum(int(s.terminated) + int(s.truncated) for s in states) < steps // 2  # most steps compared in full
    draws, data = play.numpy_draws(np.random.default_rng(7)), mujoco.MjData(env.mj_model)
    play.reset(exported, data, draws)
    assert abs(tasks.lowest_point(exported.body, data)) < 1e-9  # NumPy starts rest the lowest foot point on the floor


@pytest.mark.parametrize("species, stage", [(species, stage) for species in SPECIES for stage in (1, 3)])
def test_play_succeeds_as_often_as_evaluate_in_plain_mujoco(species, stage):
    """play.py against evaluate.py --physics mujoco --mean on the same checkpoint and the same episodes (64): the same
    starts, pushes and targets (the env's random stream from the same seed), in the committed record of that command.
    Both observe the same function of the same state; they differ by rounding (ONNX against XLA, under 1e-6 in the
    action; float64 against a state that crosses as float32 each control step), which a marginal episode grows into a
    fall or a miss either way: so they must agree within 2 of every 32 episodes, not episode for episode. How often
    the committed policies succeed is a result, not a test."""
    evaluated, summary, _ = replay_evaluation(committed(species, stage))
    episodes = evaluated["episodes"]
    assert episodes >= 32 and "mean actions" in evaluated["policy"]
    played, recorded = (round(run["success_rate"] * episodes) for run in (summary, evaluated))
    assert abs(played - recorded) <= 2 * episodes / 32, (summary, evaluated)


def test_play_never_imports_jax_and_films(tmp_path):
    video = tmp_path / "strike.gif"
    code = ("import runpy, sys; sys.argv = ['play.py', *sys.argv[1:]]; runpy.run_path('play.py', run_name='__main__'); "
            "loaded = [m for m in ('jax', 'jaxlib', 'flax', 'optax', 'distrax') if m in sys.modules]; "
            "assert not loaded, loaded")
    result = subprocess.run([sys.executable, "-c", code, committed("velociraptor", 3), "--episodes", "1", "--video",
                             str(video), "--width", "160", "--height", "128"], cwd=ROOT, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "success_rate" in result.stdout
    frames = iio.imread(video, index=None)
    length = int(next(line.split()[-1] for line in result.stdout.splitlines() if "episode_length" in line.split()))
    assert frames.shape[0] == -(-length // 2) and frames.std() > 10  # 50 Hz control filmed at 25 fps, not blank


def test_steering_keys_move_the_target_around_the_dinosaur():
    exported = play.load_exported(committed("trex", 3))
    data = mujoco.MjData(exported.mj_model)
    play.reset(exported, data, play.numpy_draws(np.random.default_rng(0)))
    target = exported.body.target_mocap
    ahead = tasks.facing(exported.body, data)
    before = data.mocap_pos[target].copy()
    play.move_target(exported, data, 265)  # Up: 0.5 m farther along the facing
    np.testing.assert_allclose(data.mocap_pos[target][:2] - before[:2], 0.5 * ahead, atol=1e-12)
    offset = data.mocap_pos[target] - data.qpos[:3]
    play.move_target(exported, data, 263)  # Left: turned 0.3 rad about the pelvis, same distance and height
    turned = data.mocap_pos[target] - data.qpos[:3]
    assert np.linalg.norm(turned[:2]) == pytest.approx(np.linalg.norm(offset[:2]))
    assert np.arctan2(turned[1], turned[0]) - np.arctan2(offset[1], offset[0]) == pytest.approx(0.3)
    play.move_target(exported, data, 266)  # Page Up: 0.2 m higher
    assert data.mocap_pos[target][2] - before[2] == pytest.approx(0.2)


def exit_code_and_error(main, argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    lines = capsys.readouterr().err.strip().splitlines()
    return exit_info.value.code, lines


def test_bad_input_is_one_line_and_exit_code_2(tmp_path, capsys):
    damaged = tmp_path / "damaged.msgpack"
    damaged.write_bytes(open(os.path.join(committed("trex", 1), runs.CHECKPOINT), "rb").read()[:5000])
    (tmp_path / "empty").mkdir()
    cases = [
        (export.main, [str(tmp_path / "missing.msgpack")], "neither a checkpoint nor a run folder"),
        (export.main, [str(damaged)], "not a readable checkpoint"),
        (export.main, [str(tmp_path / "empty")], "neither a checkpoint nor a run folder"),
    ]
    alone = tmp_path / "alone"
    alone.mkdir()
    shutil.copy(os.path.join(committed("trex", 1), "policy.onnx"), alone / "policy.onnx")
    cases.append((play.main, [str(alone / "policy.onnx")], "has no policy.json beside it"))
    other_onnx = tmp_path / "other_onnx"
    shutil.copytree(alone, other_onnx)
    shutil.copy(os.path.join(committed("velociraptor", 1), "policy.json"), other_onnx / "policy.json")
    cases.append((play.main, [str(other_onnx)], "written for another ONNX file"))
    other_model = tmp_path / "other_model"
    shutil.copytree(alone, other_model)
    spec = json.loads(open(os.path.join(committed("trex", 1), "policy.json")).read())
    spec["model"]["sha256"] = "0" * 64  # exported for an earlier trex.xml
    (other_model / "policy.json").write_text(json.dumps(spec))
    cases.append((play.main, [str(other_model)], "is for another model"))
    (tmp_path / "no_json" / "policy.onnx").parent.mkdir()
    cases.append((play.main, [str(tmp_path / "no_json")], "no ONNX policy at"))
    heading = tmp_path / "heading"  # a stage 2 of the task it was before velocity commands, as saved then
    shutil.copytree(committed("trex", 2), heading, ignore=shutil.ignore_patterns("*.gif"))
    checkpoint = runs.read_checkpoint(heading / runs.CHECKPOINT)
    checkpoint["config"]["task"] = "locomotion"
    runs.write_checkpoint(heading / runs.CHECKPOINT, checkpoint)
    spec = json.loads((heading / "policy.json").read_text())
    (heading / "policy.json").write_text(json.dumps(dict(spec, config=dict(spec["config"], task="locomotion"))))
    cases += [(play.main, [str(heading)], "the policy's task 'locomotion' is not one of this code's"),
              (export.main, [str(heading), "--out", str(tmp_path / "heading_export")], "trained on the heading task"),
              (play.main, [committed("trex", 3), "--command", "1,0,0"], "follows no velocity commands")]
    for main, argv, message in cases:
        code, lines = exit_code_and_error(main, argv, capsys)
        assert code == 2 and len(lines) == 1 and message in lines[0], (argv, lines)
