"""Run outputs: checkpoints (round trip, atomic save, corruption), the learning curves' panels, exact resume after
Ctrl-C, evaluation refusing another env's checkpoint, and headless video. (Evaluation of a known policy in MJX and
plain MuJoCo: test_species.)"""

import csv
import json
import os
import shutil
import signal

import imageio.v3 as iio
import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envs
import evaluate
import rendering
import runs
import training
from cartpole import SHORT_CONFIG, make_cartpole_env


def small_tree(rows=3):
    return {"w": jnp.arange(rows * 2, dtype=jnp.float32).reshape(rows, 2), "key": jax.random.key(7),
            "step": jnp.array(5, jnp.int32)}


def test_arrays_round_trip_and_mismatches_are_named():
    tree = small_tree()
    back = runs.arrays_to_tree(runs.tree_to_arrays(tree), jax.eval_shape(lambda: tree), "ckpt")
    np.testing.assert_array_equal(back["w"], tree["w"])
    assert int(back["step"]) == 5
    np.testing.assert_array_equal(jax.random.key_data(back["key"]), jax.random.key_data(tree["key"]))
    expected = r"ckpt: \['w'\] is \(3, 2\) float32 in the checkpoint, \(4, 2\) float32 expected"
    with pytest.raises(runs.CheckpointError, match=expected):
        runs.arrays_to_tree(runs.tree_to_arrays(tree), jax.eval_shape(lambda: small_tree(4)), "ckpt")
    with pytest.raises(runs.CheckpointError, match=r"ckpt: \['extra'\] is missing"):
        runs.arrays_to_tree(runs.tree_to_arrays(tree), jax.eval_shape(lambda: tree | {"extra": jnp.zeros(1)}), "ckpt")


def save(path, tree, update):
    runs.save_checkpoint(str(path), "env", {"actor_hidden": [4], "critic_hidden": [4]}, update, tree, tree,
                         [{"update": update, "x": 0.5}], 1.0)


def test_failed_save_leaves_the_previous_checkpoint_loadable(tmp_path, monkeypatch):
    path = tmp_path / "checkpoint.msgpack"
    save(path, small_tree(), 1)
    before = path.read_bytes()

    def crash(fd):  # the new file is fully written but not yet renamed into place
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", crash)
    with pytest.raises(OSError, match="disk full"):
        save(path, {"w": jnp.ones((3, 2))}, 2)
    monkeypatch.undo()
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == ["checkpoint.msgpack"]  # no temporary file left behind
    checkpoint = runs.read_checkpoint(str(path))
    assert checkpoint["update"] == 1 and checkpoint["rows"] == [{"update": 1, "x": 0.5}]


def test_truncated_or_corrupted_checkpoint_is_refused(tmp_path):
    path = tmp_path / "checkpoint.msgpack"
    save(path, small_tree(), 1)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(runs.CheckpointError, match="not a readable checkpoint"):
        runs.read_checkpoint(str(path))
    flipped = bytearray(data)
    flipped[data.index(np.arange(6, dtype=np.float32).tobytes()) + 5] ^= 0xFF  # inside the array: still valid msgpack
    path.write_bytes(bytes(flipped))
    with pytest.raises(runs.CheckpointError, match="checksum mismatch"):
        runs.read_checkpoint(str(path))
    path.write_bytes(b"hello")
    with pytest.raises(runs.CheckpointError):
        runs.read_checkpoint(str(path))


@pytest.fixture(scope="module")
def cartpole_runs(tmp_path_factory, cartpole_straight):
    """The straight cartpole run, and the same run stopped by a real SIGINT after update 3, then resumed."""
    env = make_cartpole_env(SHORT_CONFIG)
    stopped = tmp_path_factory.mktemp("stopped")
    print_progress = training.print_progress

    def ctrl_c_after_update_3(latest, *args):
        print_progress(latest, *args)
        if latest[0]["update"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    training.print_progress = ctrl_c_after_update_3
    try:
        interrupted = training.run(env, SHORT_CONFIG, 0, str(stopped))
    finally:
        training.print_progress = print_progress
    at_stop = runs.read_checkpoint(str(stopped / runs.CHECKPOINT))
    training.run(env, SHORT_CONFIG, 0, str(stopped), resume=True)
    return dict(env=env, straight=cartpole_straight, stopped=stopped, interrupted=interrupted, at_stop=at_stop)


def test_overrides_suffix_keeps_file_names_to_safe_characters():
    assert runs.overrides_suffix(["num_minibatches=4", "gamma=0.99"]) == "_num_minibatches-4_gamma-0.99"
    assert runs.overrides_suffix(["sim_dt=0.005,solver_iterations=1"]) == "_sim_dt-0.005_solver_iterations-1"
    assert runs.overrides_suffix(["command.range=(0, 1)"]) == "_command.range-_0__1_"


def test_curve_panels_are_the_ones_the_metrics_have_columns_for():
    stage1 = ["update", "env_steps", "episode_return", "episode_length", "reward/posture", "reward/torque",
              "actor_loss", "value_loss", "entropy", "approx_kl", "clip_fraction", "steps_per_s"]
    panels = dict(runs.curve_panels(stage1))
    assert list(panels) == [name for name, _ in runs.CURVES if not name.startswith("tracking")]
    assert panels["reward terms (per step)"] == ["reward/posture", "reward/torque"]
    assert panels["losses"] == ["actor_loss", "value_loss", "entropy"]
    stage2 = dict(runs.curve_panels(stage1 + ["yaw_rate_error", "lin_vel_error"]))
    assert stage2["tracking errors in training (m/s, rad/s)"] == ["lin_vel_error", "yaw_rate_error"]
    rows = [{column: float(i) for column in stage1 + ["lin_vel_error", "yaw_rate_error"]} for i in range(3)]
    assert runs.plot_curves(rows, "stage 2").startswith(b"\x89PNG")


def test_ctrl_c_stops_cleanly_with_a_checkpoint(cartpole_runs):
    assert cartpole_runs["interrupted"] is None
    at_stop = cartpole_runs["at_stop"]
    assert at_stop["update"] == 3 and len(at_stop["rows"]) == 3
    assert at_stop["config"]["env"] == "cartpole" and at_stop["config"]["seed"] == 0


def test_resumed_run_equals_the_straight_run(cartpole_runs):
    def read(folder):
        with open(folder / "metrics.csv") as f:
            rows = list(csv.DictReader(f))
        return rows, runs.read_checkpoint(str(folder / runs.CHECKPOINT))

    (straight_rows, straight), (resumed_rows, resumed) = read(cartpole_runs["straight"]), read(cartpole_runs["stopped"])
    assert len(straight_rows) == len(resumed_rows) == 6
    for a, b in zip(straight_rows, resumed_rows):
        for column in a:
            if column not in ("wall_s", "steps_per_s"):
                np.testing.assert_allclose(float(a[column]), float(b[column]), rtol=1e-6, atol=1e-7, err_msg=column)
    assert straight["runner"].keys() == resumed["runner"].keys()
    for name in straight["runner"]:  # params, Adam moments, normalizer, env states, rng, update count
        np.testing.assert_allclose(straight["runner"][name], resumed["runner"][name], rtol=1e-6, atol=1e-6,
                                   err_msg=name)
    evaluations = [json.loads((cartpole_runs[k] / "eval.json").read_text()) for k in ("straight", "stopped")]
    assert evaluations[0]["episode_return"] == pytest.approx(evaluations[1]["episode_return"], rel=1e-5)
    assert (cartpole_runs["straight"] / "curves.png").read_bytes()[:4] == b"\x89PNG"


def test_resume_refuses_a_checkpoint_of_another_config(cartpole_runs, tmp_path):
    other = dict(SHORT_CONFIG, critic_hidden=(32,))
    (tmp_path / runs.CHECKPOINT).write_bytes((cartpole_runs["straight"] / runs.CHECKPOINT).read_bytes())
    with pytest.raises(runs.CheckpointError, match="config differs"):
        training.run(cartpole_runs["env"], other, 0, str(tmp_path), resume=True)


def test_policy_only_checkpoint_keeps_the_policy_and_refuses_to_resume(cartpole_runs, tmp_path):
    folder = tmp_path / "run"
    shutil.copytree(cartpole_runs["straight"], folder)
    path = folder / runs.CHECKPOINT
    full, full_bytes = runs.read_checkpoint(str(path)), path.stat().st_size
    assert runs.keep_policy_only(str(tmp_path)) == [str(path)]
    assert runs.keep_policy_only(str(tmp_path)) == []  # nothing left to drop
    slim = runs.read_checkpoint(str(path))
    assert "runner" not in slim and path.stat().st_size < full_bytes / 2
    assert {k: v for k, v in full.items() if k not in ("runner", "policy")} == {
        k: v for k, v in slim.items() if k != "policy"}
    for name, array in full["policy"].items():
        np.testing.assert_array_equal(slim["policy"][name], array)
    (folder / "eval.json").unlink()  # as if the run had stopped before its evaluation
    with pytest.raises(runs.CheckpointError, match="holds the policy alone .* cannot resume"):
        training.run(cartpole_runs["env"], SHORT_CONFIG, 0, str(folder), resume=True)


def test_evaluation_refuses_a_checkpoint_of_another_env(cartpole_runs):
    path = str(cartpole_runs["straight"] / runs.CHECKPOINT)
    env_name, config, checkpoint = evaluate.checkpoint_settings(path, "trex_stage1", {})
    assert env_name == "trex_stage1" and config["actor_hidden"] == tuple(SHORT_CONFIG["actor_hidden"])
    expected = (r"\(env 'cartpole', actor_hidden \(256, 256\), critic_hidden \(256, 256\)\) does not fit env "
                r"'trex_stage1': \['normalizer'\]\.mean is \(4,\) float32 in the checkpoint, \(62,\) float32 expected")
    with pytest.raises(runs.CheckpointError, match=expected):
        training.load_policy(path, checkpoint, config, envs.make_env("trex_stage1"))


@pytest.mark.parametrize("extension", [".mp4", ".gif"])
def test_headless_video_has_the_frames_rendered(tmp_path, extension):
    env = envs.make_env("trex_stage1")
    home = env.mj_model.keyframe("home").qpos
    target = [1.0, 0.0, 1.0]
    command = np.zeros(env.mj_model.nuserdata)
    poses = np.stack([np.r_[home + np.r_[np.zeros(7), np.full(14, 0.02 * t)], target, command] for t in range(7)])
    frames = rendering.render_frames(env.mj_model, poses, 160, 128, "track")
    assert frames.shape == (7, 128, 160, 3) and frames.std() > 10  # not a blank image
    assert np.abs(frames[0].astype(int) - frames[-1]).mean() > 0.1  # the pose change shows
    path = tmp_path / f"video{extension}"
    runs.atomic_write(str(path), rendering.video_bytes(frames, extension, fps=25))
    back = iio.imread(path, index=None)
    assert back.shape == frames.shape
