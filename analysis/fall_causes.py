"""Which of an episode's draws make a policy fail (fall, or miss its target)? Success against each randomized factor.

    python analysis/fall_causes.py results/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage1 --episodes 512
    python analysis/fall_causes.py results/trex_curriculum_cpu_seed0/trex_stage2 --episodes 256
    python analysis/fall_causes.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage3 --episodes 256

Runs the policy's mean action (`--sampled`: sampled actions) for `--episodes` episodes in its own config
(randomization and pushes as trained), from a seed apart from training's and the gates', then with randomization
off, pushes off, observation noise off, observation noise alone (every range off) and the action delay off (six
compiles). For each factor drawn at reset it splits the episodes into thirds by that factor (by value for the
action delay; per-actuator and per-body draws by their largest deviation from neutral) and prints the success of each
third, so a factor the policy cannot cope with shows as a third that falls much more than the others.
Writes <folder>/fall_causes_<mean or sampled>.json.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import evaluate  # noqa: E402  first: it chooses the log level and OpenGL backend before JAX and MuJoCo load
import jax  # noqa: E402
import numpy as np  # noqa: E402

import envs  # noqa: E402
import evaluation  # noqa: E402
import ppo_mjx  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import with_overrides  # noqa: E402

NEUTRAL = dict(friction=1.0, body_mass=1.0, payload=0.0, kp=1.0, damping=1.0, armature=1.0, home_offset=0.0,
               action_delay=0)


def policy_episodes(name, config, path, checkpoint, mean, episodes, seed):
    """(env, its episode records, their poses: `evaluation.evaluation_rollout`) of the policy in `checkpoint` (read
    from `path`) in `config`, the envs' keys from `seed`."""
    env = envs.env_from_config(name, config)
    loaded = training.load_policy(path, checkpoint, config, env)
    policy = ppo_mjx.evaluation_policy(config, env.action_size, **loaded, mean=mean)
    return (env, *evaluation.evaluate(env, policy, jax.random.key(seed), episodes))


def succeeded(env, episodes):
    """Success per episode: the task's, or, in a task without one (stage 2's commands), reaching the time limit."""
    return np.asarray(env.episode_success(episodes) if env.episode_success else episodes["reached_time_limit"], bool)


def success_and_lengths(name, config, path, checkpoint, mean, episodes, seed):
    """(success per episode, episode lengths) of the policy in `checkpoint` in `config` (`policy_episodes`)."""
    env, result, _ = policy_episodes(name, config, path, checkpoint, mean, episodes, seed)
    return succeeded(env, result), result["episode_length"]


def reset_draws(name, config, episodes, seed):
    """What the envs of `success_and_lengths` drew at their first reset, as numpy arrays."""
    env = envs.env_from_config(name, config)
    return jax.device_get(jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(seed), episodes)).episode)


def deviation(name, values):
    """One number per episode: the draw, or the largest deviation from neutral of a per-body/per-actuator draw."""
    values = np.asarray(values, np.float64)
    return values if values.ndim == 1 else np.max(np.abs(values - NEUTRAL[name]), axis=1)


def by_thirds(success, factor):
    """Success in each third of the episodes by `factor`, or at each value of a factor with at most three."""
    values = np.unique(factor)
    if len(values) <= 3:
        group = np.searchsorted(values, factor)
    else:
        group = np.clip(np.searchsorted(np.quantile(factor, [1 / 3, 2 / 3]), factor, side="right"), 0, 2)
    return [dict(low=float(factor[group == g].min()), high=float(factor[group == g].max()),
                 episodes=int(np.sum(group == g)), success=float(np.mean(success[group == g])))
            for g in range(min(3, len(values)))]


def policy_arguments(description, episodes):
    """The command line of a study of one policy's episodes: its run folder, how many episodes, their seed, and
    whether it acts with its mean or samples."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("folder", help="a run folder (its checkpoint.msgpack), of any stage")
    parser.add_argument("--episodes", type=int, default=episodes)
    parser.add_argument("--seed", type=int, default=3_000_000, help="apart from training's and the gates' seeds")
    parser.add_argument("--sampled", action="store_true", help="sampled actions instead of the mean")
    return parser


def main(argv=None):
    args = policy_arguments(__doc__.splitlines()[0], 512).parse_args(argv)
    training.enable_compilation_cache()
    start = time.monotonic()
    path = os.path.join(args.folder, runs.CHECKPOINT)
    name, config, checkpoint = evaluate.checkpoint_settings(path, None, {})
    success, length = success_and_lengths(name, config, path, checkpoint, not args.sampled, args.episodes, args.seed)
    draws = reset_draws(name, config, args.episodes, args.seed)
    report = dict(folder=os.path.relpath(args.folder, ROOT), actions="sampled" if args.sampled else "mean",
                  episodes=args.episodes, seed=args.seed, machine=runs.machine(), success=float(np.mean(success)),
                  fall_step_quartiles=np.quantile(length[~success], [0.25, 0.5, 0.75]).tolist() if (~success).any()
                  else [], factors={k: by_thirds(success, deviation(k, v)) for k, v in draws.items() if k in NEUTRAL})
    print(f"{name} {report['actions']} action, as trained: success {report['success']:.3f}; falls at steps "
          f"(quartiles) {report['fall_step_quartiles']}")
    for factor, thirds in report["factors"].items():
        print(f"  {factor:12s} " + "  ".join(f"[{t['low']:.3g}, {t['high']:.3g}]: {t['success']:.2f}" for t in thirds))
    quiet = {f"randomize.obs_noise.{group}": 0.0 for group in config["randomize"]["obs_noise"]}
    variants = {"randomization off": {"randomize.enabled": False}, "pushes off": {"push_interval": 0},
                "observation noise off": quiet,
                "only observation noise": {f"randomize.{name}": None for name in NEUTRAL},
                "action delay off": {"randomize.action_delay": None}}
    for label, change in variants.items():
        alone = success_and_lengths(name, with_overrides(config, change), path, checkpoint, not args.sampled,
                                    args.episodes, args.seed)[0]
        report[label] = float(np.mean(alone))
        print(f"  {label}: success {report[label]:.3f}")
    report["wall_s"] = time.monotonic() - start
    runs.atomic_write(os.path.join(args.folder, f"fall_causes_{report['actions']}.json"),
                      json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
