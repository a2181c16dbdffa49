"""Take a trained policy out of JAX: `policy.onnx` and `policy.json`, for play.py or any ONNX runtime.

    python export.py results/trex_curriculum_cpu_seed0/trex_stage1     # writes policy.onnx and policy.json there
    python export.py results/trex_curriculum_cpu_seed0                 # each stage of a curriculum (or run of a group)
    python export.py path/to/checkpoint.msgpack --out exported/trex    # a checkpoint file, into a folder

policy.onnx has one float32 input `obs` [batch, observation_size] and one output `action` [batch, action_size]: the
Gaussian's mean, with the observation normalizer folded in, clipped to [-1, 1] (ppo_mjx.policy_mean, converted by
jax2onnx; the batch size is free). policy.json says what a player needs to run it: the env and its config, the model
file, the control and physics timesteps, the observation layout, how an action becomes actuator controls, and the
SHA-256 of the checkpoint, the model file and the ONNX file. Before anything is written, onnxruntime runs the ONNX
model on observations drawn around the normalizer's statistics, and its actions must equal JAX's within 1e-5.
"""

import startup

startup.before_jax()

import argparse  # noqa: E402
import hashlib  # noqa: E402
import importlib.metadata  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402

import jax  # noqa: E402
import jax2onnx  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import onnx  # noqa: E402
import onnxruntime  # noqa: E402

import envs  # noqa: E402
import play  # noqa: E402
import ppo_mjx  # noqa: E402
import runs  # noqa: E402
import tasks  # noqa: E402
import training  # noqa: E402
from configs import ConfigError, from_saved, get_config  # noqa: E402

TOLERANCE = 1e-5  # largest difference allowed between an ONNX action and JAX's


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def checkpoints_under(source, out):
    """[(checkpoint path, output folder)] for a checkpoint file, a run folder, or a folder of run folders (a
    curriculum or a group: each run's export goes into its own folder, under `out` when given)."""
    if os.path.isfile(source):
        return [(source, out or os.path.dirname(os.path.abspath(source)))]
    if os.path.isfile(os.path.join(source, runs.CHECKPOINT)):
        return [(os.path.join(source, runs.CHECKPOINT), out or source)]
    if os.path.isdir(source):
        found = [(os.path.join(source, name, runs.CHECKPOINT), os.path.join(out or source, name))
                 for name in sorted(os.listdir(source)) if os.path.isfile(os.path.join(source, name, runs.CHECKPOINT))]
        if found:
            return found
    raise ConfigError(f"{source} is neither a checkpoint nor a run folder, nor a folder of run folders")


def policy_spec(env_name, config, mj_model, checkpoint, checkpoint_bytes, onnx_bytes, onnx_error):
    """The contents of policy.json."""
    species, _, stage = env_name.rpartition("_stage")
    home = mj_model.keyframe("home")
    layout = tasks.observation_layout(config, mj_model)
    with open(os.path.join(tasks.MODELS_DIR, config["model"]), "rb") as f:
        model_sha256 = sha256(f.read())
    return dict(
        format=play.FORMAT,
        env=env_name, species=species, stage=int(stage), task=config["task"],
        model=dict(file=config["model"], sha256=model_sha256, mujoco=mujoco.__version__),
        ctrl_dt=config["ctrl_dt"], sim_dt=config["sim_dt"],
        onnx=dict(file=play.POLICY_ONNX, sha256=sha256(onnx_bytes), input="obs", output="action",
                  max_abs_difference_from_jax=onnx_error, jax2onnx=importlib.metadata.version("jax2onnx"),
                  onnxruntime=onnxruntime.__version__),
        observation=dict(size=layout[-1]["stop"], groups=layout,
                         joints=[mj_model.joint(i).name for i in range(1, mj_model.njnt)]),
        action=dict(
            size=mj_model.nu,
            meaning="the Gaussian's mean, clipped to [-1, 1]; 0 holds the home pose",
            smoothing=config.get("action_smoothing", 0.0),
            applied="applied = (1 - smoothing) * action + smoothing * last applied (0 at an episode's start); "
                    "observed as the previous action",
            to_ctrl="ctrl = home + action_scale * applied * (high - home if applied > 0 else home - low)",
            actuators=[mj_model.actuator(i).name for i in range(mj_model.nu)],
            action_scale=config["action_scale"],
            home=home.ctrl.tolist(), low=mj_model.actuator_ctrlrange[:, 0].tolist(),
            high=mj_model.actuator_ctrlrange[:, 1].tolist()),
        checkpoint=dict(sha256=sha256(checkpoint_bytes), update=int(checkpoint["update"])),
        config=config,
    )


def check_against_jax(act, onnx_bytes, normalizer, seed=0):
    """Largest |ONNX action - JAX action| over observations around the normalizer's statistics (up to 4 standard
    deviations away, where the clips of the normalizer and of the action bite); RuntimeError beyond TOLERANCE."""
    mean, std = np.asarray(normalizer.mean), np.sqrt(np.asarray(normalizer.var))
    scale = np.repeat([0.0, 0.5, 1.0, 4.0], 64)[:, None]
    obs = (mean + std * scale * np.random.default_rng(seed).normal(size=(len(scale), len(mean)))).astype(np.float32)
    session = onnxruntime.InferenceSession(onnx_bytes, providers=["CPUExecutionProvider"])
    error = float(np.max(np.abs(session.run(["action"], {"obs": obs})[0] - np.asarray(jax.jit(act)(obs)))))
    if error > TOLERANCE:
        raise RuntimeError(f"the ONNX policy differs from JAX's by {error:.3g} (> {TOLERANCE:g})")
    return error


def export(checkpoint_path, out):
    """Write policy.onnx and policy.json of the checkpoint at `checkpoint_path` into `out`; returns policy.json's
    path."""
    with open(checkpoint_path, "rb") as f:
        checkpoint_bytes = f.read()
    checkpoint = runs.read_checkpoint(checkpoint_path)
    env_name, _, saved = from_saved(checkpoint["config"])
    config = get_config(env_name, saved)
    if config.get("task") not in tasks.TASKS:
        raise ConfigError(f"{checkpoint_path}: env '{env_name}' is not a legged task of tasks.py")
    env = envs.env_from_config(env_name, config)
    policy = training.load_policy(checkpoint_path, checkpoint, config, env)
    act = ppo_mjx.policy_mean(config, env.action_size, **policy)
    model = jax2onnx.to_onnx(act, [("batch", env.observation_size)], input_names=["obs"], output_names=["action"],
                             model_name=env_name)
    onnx.helper.set_model_props(model, dict(env=env_name, checkpoint_sha256=sha256(checkpoint_bytes)))
    onnx_bytes = model.SerializeToString()
    error = check_against_jax(act, onnx_bytes, policy["normalizer"])
    spec = policy_spec(env_name, config, env.mj_model, checkpoint, checkpoint_bytes, onnx_bytes, error)
    runs.atomic_write(os.path.join(out, play.POLICY_ONNX), onnx_bytes)
    runs.atomic_write(os.path.join(out, play.POLICY_JSON), json.dumps(spec, indent=1) + "\n")
    print(f"{env_name}: wrote {os.path.join(out, play.POLICY_ONNX)} ({len(onnx_bytes) / 1e3:.0f} kB; max |ONNX - JAX| "
          f"{error:.1e}) and {play.POLICY_JSON}")
    return os.path.join(out, play.POLICY_JSON)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="a run folder, a curriculum or group folder, or a checkpoint file")
    parser.add_argument("--out", help="output folder (default: each run's own folder)")
    args = parser.parse_args(argv)
    training.enable_compilation_cache()
    try:
        for checkpoint_path, out in checkpoints_under(args.source, args.out):
            export(checkpoint_path, out)
    except (ConfigError, runs.CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    main()
