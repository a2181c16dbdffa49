"""Evaluate a trained policy: metrics in MJX or in plain MuJoCo (sim-to-sim), a video, or MuJoCo's viewer.

    python evaluate.py results/trex_curriculum_cpu_seed0/trex_stage1                # MJX, writes eval_mjx_mean.json
    python evaluate.py results/trex_curriculum_cpu_seed0/trex_stage1 --physics mujoco   # plain MuJoCo (C)
    python evaluate.py results/trex_curriculum_cpu_seed0/trex_stage3 --episodes 2 --video trex.mp4   # or .gif
    python evaluate.py results/trex_curriculum_cpu_seed0/trex_stage2 --viewer           # needs a display
    python evaluate.py --zero-action --env trex_stage1                                  # the do-nothing baseline

The policy (the Gaussian's mean action, as a user deploys it; `--sampled`: actions sampled from the Gaussian with white
noise, as training samples unless its config correlates the noise in time, from `--seed` as the starts and pushes are)
runs `--episodes` episodes from fresh random starts, with the domain randomization of its config (`--set
randomize.enabled=False`: the nominal model). Metrics: return, episode length, share reaching the time limit, success
rate, forward speed and every task metric (its value at the episode's end, and `<name>_mean` over the episode).
`--physics mujoco` steps the same env in plain MuJoCo (C, float64) instead of MJX, with observations, rewards and
termination computed by the same code, so the two reports compare the simulators alone. Videos replay the recorded joint
and target positions through `mujoco.Renderer`: headless through OSMesa on a CPU (Debian `libosmesa6`) or EGL on an
NVIDIA GPU, picked here unless MUJOCO_GL is set.
"""

import startup

startup.before_jax()  # picks a headless OpenGL backend (unless MUJOCO_GL is set) before MuJoCo is imported

import argparse  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import jax  # noqa: E402
import numpy as np  # noqa: E402

import commands  # noqa: E402
import envs  # noqa: E402
import evaluation  # noqa: E402
import ppo_mjx  # noqa: E402
import rendering  # noqa: E402
import runs  # noqa: E402
import simulation  # noqa: E402
import tasks  # noqa: E402
import training  # noqa: E402
from configs import ConfigError, from_saved, get_config, parse_overrides  # noqa: E402

NETWORK_KEYS = ("actor_hidden", "critic_hidden", "init_log_std", "normalize_obs")


def checkpoint_settings(path, env_name, overrides):
    """(env name, config, checkpoint): `env_name` None keeps the checkpoint's env and settings; another env keeps only
    the checkpoint's network settings. Overrides apply last."""
    checkpoint = runs.read_checkpoint(path)
    saved_env, _, saved = from_saved(checkpoint["config"])
    if env_name is None or env_name == saved_env:
        env_name, base = saved_env, saved
    else:
        base = {k: saved[k] for k in NETWORK_KEYS}
    return env_name, get_config(env_name, base | overrides), checkpoint


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", help="run folder (its checkpoint.msgpack) or a checkpoint file")
    parser.add_argument("--zero-action", action="store_true", help="evaluate action 0 (hold home) instead; needs --env")
    actions = parser.add_mutually_exclusive_group()
    actions.add_argument("--mean", action="store_true", help="act with the Gaussian's mean (the default)")
    actions.add_argument("--sampled", action="store_true", help="sample actions from the Gaussian (white noise)")
    parser.add_argument("--env", help="env to evaluate in (default: the checkpoint's)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override env settings")
    parser.add_argument("--episodes", type=int, default=16, help="episodes from fresh random starts")
    parser.add_argument("--seed", type=int, default=1_000_000, help="seed of the start states and pushes")
    parser.add_argument("--physics", choices=simulation.PHYSICS, default="mjx",
                        help="mjx (as trained) or mujoco (plain MuJoCo in C: the sim-to-sim check)")
    parser.add_argument("--out", help="metrics JSON (default <run folder>/eval_<physics>_<mean or sampled>.json)")
    rendering.add_video_arguments(parser)
    parser.add_argument("--viewer", action="store_true", help="replay the first episode in MuJoCo's viewer")
    return parser.parse_args(argv)


def env_and_policy(args):
    """(env, config, policy, what the policy is) for the command line's checkpoint, or for --zero-action."""
    overrides = parse_overrides(args.set)
    if args.zero_action:
        if not args.env or args.source:
            raise ConfigError("--zero-action takes --env and no checkpoint")
        config = get_config(args.env, overrides)
        env = envs.env_from_config(args.env, config, args.physics)
        return env, config, evaluation.zero_policy(env), "zero action"
    if not args.source:
        raise ConfigError("give a run folder or checkpoint, or --zero-action --env NAME")
    path = os.path.join(args.source, runs.CHECKPOINT) if os.path.isdir(args.source) else args.source
    env_name, config, checkpoint = checkpoint_settings(path, args.env, overrides)
    env = envs.env_from_config(env_name, config, args.physics)
    policy = ppo_mjx.evaluation_policy(config, env.action_size, **training.load_policy(path, checkpoint, config, env),
                                       mean=not args.sampled)
    actions = "sampled actions" if args.sampled else "mean actions"
    return env, config, policy, f"checkpoint at update {checkpoint['update']}, {actions}"


def main(argv=None):
    args = parse_args(argv)
    training.enable_compilation_cache()
    try:
        if args.video:
            rendering.check_video(args.video)
        if args.viewer:
            rendering.check_viewer("--video")
        env, config, policy, description = env_and_policy(args)
        start = time.monotonic()
        episodes, poses = evaluation.evaluate(env, policy, jax.random.key(args.seed), args.episodes)
        summary = evaluation.evaluation_summary(env, episodes) | dict(
            env=env.name, physics=args.physics, episodes=args.episodes, seed=args.seed, policy=description,
            wall_s=time.monotonic() - start,
            command=" ".join(["python evaluate.py", *(argv if argv is not None else sys.argv[1:])]),
            date=time.strftime("%Y-%m-%d"), machine=runs.machine())
        print("\n".join(f"{k:>24}  {v:.4g}" if isinstance(v, float) else f"{k:>24}  {v}" for k, v in summary.items()))
    except (ConfigError, runs.CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    name = f"eval_{args.physics}_{'sampled' if args.sampled else 'mean'}.json"
    out = args.out or (os.path.join(args.source, name) if args.source and os.path.isdir(args.source) else None)
    if out:
        runs.atomic_write(out, json.dumps(summary, indent=1) + "\n")
        print(f"wrote {out}")
    if args.video:
        filmed = rendering.recorded_episodes(poses, episodes["episode_length"], args.video_episodes)
        overlay = (None if commands.schedule(config) is None
                   else rendering.command_overlay(tasks.legged_body(config, env.mj_model, np)))
        rendering.write_video(args, env.mj_model, filmed, config["ctrl_dt"], overlay)
    if args.viewer:
        first = rendering.recorded_episodes(poses, episodes["episode_length"], 1)[0]
        rendering.replay_in_viewer(env.mj_model, first, config["ctrl_dt"])


if __name__ == "__main__":
    main()
