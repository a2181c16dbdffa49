"""Env steps/s of (a) the raw vmapped env under random actions and (b) the full jitted PPO train, same env and
num_envs, in one run on one machine, with the config's domain randomization and without it (randomize.enabled=False);
prints b/a and what randomization costs, and writes the figures to results/throughput_<env>_<backend>_<n>envs.json.

    python benchmarks/throughput.py --env trex_stage1 --num-envs 256 --updates 10

With `--versus` it times the config against other settings instead, each a comma-separated list of overrides, and
prints each one's speed as a multiple of the config's (results/..._versus_<settings>.json):

    python benchmarks/throughput.py --env trex_stage2 --versus sim_dt=0.005 --versus solver_iterations=1

Compilation is excluded from both timings (each function is compiled and run once before it is timed; those first
calls are recorded apart); (a) and (b), with and without randomization or under each setting, are timed alternately
`--repeats` times and the medians compared.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import startup  # noqa: E402

startup.before_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import envs  # noqa: E402
import ppo_mjx  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import ConfigError, get_config, parse_overrides  # noqa: E402


def random_rollout(env, num_envs, num_steps, action_std):
    """num_steps of the vmapped env under random actions, as one jitted scan. The actions are drawn like those of the
    untrained policy (mean 0, std exp(init_log_std)): MJX's solver iterates until it converges, so physics cost
    depends on the states visited, and (a) and (b) must visit alike states for b/a to measure the learner alone."""

    def rollout(state, key):
        def body(state, key):
            action = action_std * jax.random.normal(key, (num_envs, env.action_size))
            state = jax.vmap(env.step)(state, action)
            return state, state.reward.mean()

        return jax.lax.scan(body, state, jax.random.split(key, num_steps))

    return jax.jit(rollout)


def timed(fn, *args):
    start = time.perf_counter()
    jax.block_until_ready(fn(*args))
    return time.perf_counter() - start


def prepare(env_name, num_envs, updates, overrides=None):
    """(config, timed calls): (a) and (b) for `env_name` at `num_envs` with `updates` PPO updates (and raw rollouts of
    equal length) per call, each called once untimed first (compile and warm-up, its seconds kept apart)."""
    config = get_config(env_name, {**(overrides or {}), "num_envs": num_envs})
    config["total_timesteps"] = num_envs * config["num_steps"] * updates
    env = envs.env_from_config(env_name, config)
    rollout = random_rollout(env, num_envs, config["num_steps"] * updates, jnp.exp(config["init_log_std"]))
    state = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), num_envs))
    train = jax.jit(ppo_mjx.make_train(config, env))
    calls = dict(raw=lambda rep: timed(rollout, state, jax.random.key(rep)),
                 train=lambda rep: timed(train, jax.random.key(rep)))
    return config, calls, [call(0) for call in calls.values()]


def figures(env_name, config, updates, overrides, first_call_s, seconds):
    """The record of one variant from its timed calls' `seconds` ({"raw": [...], "train": [...]}): medians."""
    steps = config["num_envs"] * config["num_steps"] * updates
    raw, full = steps / np.median(seconds["raw"]), steps / np.median(seconds["train"])
    return dict(env=env_name, num_envs=config["num_envs"], overrides=overrides or {}, num_steps=config["num_steps"],
                num_minibatches=config["num_minibatches"], update_epochs=config["update_epochs"],
                actor_hidden=config["actor_hidden"], critic_hidden=config["critic_hidden"], mjx_impl=config["mjx_impl"],
                updates=updates, env_steps_timed=steps, first_call_seconds=first_call_s, raw_seconds=seconds["raw"],
                train_seconds=seconds["train"], raw_env_steps_per_s=raw, ppo_train_steps_per_s=full,
                ratio_train_over_raw=full / raw, physics_steps_per_s=raw * round(config["ctrl_dt"] / config["sim_dt"]))


def measure_alternately(env_name, num_envs, updates, repeats, variants):
    """{label: figures} of each variant ({label: overrides}), their timed calls alternating `repeats` times so that
    drifting machine load hits all alike."""
    prepared = {label: prepare(env_name, num_envs, updates, overrides) for label, overrides in variants.items()}
    seconds = {label: dict(raw=[], train=[]) for label in variants}
    for rep in range(1, repeats + 1):
        for label, (_, calls, _) in prepared.items():
            for part, call in calls.items():
                seconds[label][part].append(call(rep))
    return {label: figures(env_name, config, updates, variants[label], first_call_s, seconds[label])
            for label, (config, _, first_call_s) in prepared.items()}


def measure(env_name, num_envs, updates, repeats, overrides=None):
    """Figures of (a) and (b) for `env_name` at `num_envs`, timed alternately."""
    return measure_alternately(env_name, num_envs, updates, repeats, {"": overrides or {}})[""]


def randomization_cost(args, overrides):
    """(record, printed lines): the config timed with its randomization and without."""
    measured = measure_alternately(args.env, args.num_envs, args.updates, args.repeats, dict(
        randomized=overrides, nominal=overrides | {"randomize.enabled": False}))
    result, nominal = measured["randomized"], measured["nominal"]
    result |= dict(nominal=nominal, randomization_slowdown=dict(
        raw_env=1 - result["raw_env_steps_per_s"] / nominal["raw_env_steps_per_s"],
        ppo_train=1 - result["ppo_train_steps_per_s"] / nominal["ppo_train_steps_per_s"]))
    lines = [f"{label:>10}: (a) raw env {f['raw_env_steps_per_s']:,.0f} steps/s  (b) PPO train "
             f"{f['ppo_train_steps_per_s']:,.0f} steps/s  b/a = {f['ratio_train_over_raw']:.2f}"
             for label, f in (("randomized", result), ("nominal", nominal))]
    slowdown = result["randomization_slowdown"]
    lines.append(f"randomization costs {slowdown['raw_env']:.1%} of the raw env's steps/s and "
                 f"{slowdown['ppo_train']:.1%} of the PPO train's")
    return result, lines


def versus(args, overrides, settings):
    """(record, printed lines): the config timed against each of `settings` ({label: overrides}), with the speed of
    each as a multiple of the config's."""
    measured = measure_alternately(args.env, args.num_envs, args.updates, args.repeats,
                                   {"config": overrides} | {k: overrides | v for k, v in settings.items()})
    base = measured["config"]
    speedup = {label: dict(raw_env=f["raw_env_steps_per_s"] / base["raw_env_steps_per_s"],
                           ppo_train=f["ppo_train_steps_per_s"] / base["ppo_train_steps_per_s"])
               for label, f in measured.items()}
    lines = [f"{label:>40}: (a) raw env {f['raw_env_steps_per_s']:,.0f} steps/s x{speedup[label]['raw_env']:.2f}  "
             f"(b) PPO train {f['ppo_train_steps_per_s']:,.0f} steps/s x{speedup[label]['ppo_train']:.2f}"
             for label, f in measured.items()]
    return dict(variants=measured, speedup=speedup), lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="trex_stage1")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--updates", type=int, default=10, help="PPO updates timed (and raw rollouts of equal length)")
    parser.add_argument("--repeats", type=int, default=3, help="alternating timed runs of (a) and (b)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override, as in ppo_mjx")
    parser.add_argument("--versus", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE...]",
                        help="time the config against these overrides instead of without randomization (repeatable)")
    args = parser.parse_args(argv)
    try:
        overrides = parse_overrides(args.set)
        settings = {setting: parse_overrides(setting.split(",")) for setting in args.versus}
        for setting in settings.values():
            get_config(args.env, overrides | setting)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)

    training.enable_compilation_cache()
    result, lines = versus(args, overrides, settings) if settings else randomization_cost(args, overrides)
    result |= dict(command=" ".join(["python", "benchmarks/throughput.py", *(sys.argv[1:] if argv is None else argv)]),
                   date=time.strftime("%Y-%m-%d"), machine=runs.machine())
    print(json.dumps(result, indent=1))
    suffix = runs.overrides_suffix(args.set) + ("_versus" + runs.overrides_suffix(args.versus) if settings else "")
    path = os.path.join(ROOT, "results", f"throughput_{args.env}_{jax.default_backend()}_{args.num_envs}envs"
                                         f"{suffix}.json")
    runs.atomic_write(path, json.dumps(result, indent=1) + "\n")
    print("\n".join(lines) + f" -> {path}")


if __name__ == "__main__":
    main()
