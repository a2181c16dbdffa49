"""Time N seeds trained as one vmapped program against N times one seed, on one machine, and write the figures to
results/seeds_vmap_<env>_<backend>_<num_envs>envs_<N>seeds.json.

    python benchmarks/seeds.py --env trex_stage1 --num-envs 64 --num-seeds 8 --updates 5

Both programs are the CLI's: `run_updates` vmapped over members and laid out over the local devices as
`training.run_group` does, one for a single seed and one for N. Each is compiled first (compile time recorded), then
called `--repeats` times alternately for `--updates` updates; medians are compared. Speedup = N x (one seed's time) /
(N seeds' time): above 1 the vmapped program is cheaper than N runs one after another.
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
import numpy as np  # noqa: E402

import envs  # noqa: E402
import ppo_mjx  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import get_config, parse_overrides  # noqa: E402


def compiled_updates(env, trainer, config, num_members, updates):
    """(compiled program, runner, hparams, compile seconds) for `num_members` seeds of `config`."""
    members = runs.group_runs(config, 0, num_members, [{}], "unused")
    key = training.program_key(env, config)
    layout = training.group_layout(trainer, members, jax.devices(), key)
    hparams = jax.device_put(training.host_hparams([config] * num_members), layout.hparams)
    runner = training.init_runs(trainer, members, hparams, layout, key)
    start = time.perf_counter()
    program = training.compile_updates(trainer, layout, runner, hparams, updates, key)
    return program, runner, hparams, time.perf_counter() - start


def timed(program, runner, hparams):
    """Seconds for one call, and the runner after it (so repeated calls keep training, as a real run does)."""
    start = time.perf_counter()
    runner, _ = jax.block_until_ready(program(runner, hparams))
    return time.perf_counter() - start, runner


def measure(env_name, num_envs, num_seeds, updates, repeats, overrides=None):
    """Figures of `num_seeds` seeds vmapped against one seed, `num_envs` envs each, `updates` updates per call."""
    config = get_config(env_name, {**(overrides or {}), "num_envs": num_envs})
    batch = num_envs * config["num_steps"]
    config["total_timesteps"] = batch * updates * (repeats + 1)
    env = envs.env_from_config(env_name, config)
    trainer = ppo_mjx.make_trainer(config, env)
    one = compiled_updates(env, trainer, config, 1, updates)
    many = compiled_updates(env, trainer, config, num_seeds, updates)
    one_runner, many_runner = timed(one[0], one[1], one[2])[1], timed(many[0], many[1], many[2])[1]  # warm up
    one_s, many_s = [], []
    for _ in range(repeats):  # alternate, so that drifting machine load hits both alike
        seconds, one_runner = timed(one[0], one_runner, one[2])
        one_s.append(seconds)
        seconds, many_runner = timed(many[0], many_runner, many[2])
        many_s.append(seconds)
    one_t, many_t = float(np.median(one_s)), float(np.median(many_s))
    steps = batch * updates
    return dict(
        env=env_name, num_envs=num_envs, num_seeds=num_seeds, overrides=overrides or {},
        num_steps=config["num_steps"], num_minibatches=config["num_minibatches"], updates_per_call=updates,
        devices=len(jax.devices()), compile_s_one_seed=one[3], compile_s_all_seeds=many[3],
        seconds_one_seed=one_s, seconds_all_seeds=many_s,
        env_steps_per_s_one_seed=steps / one_t, env_steps_per_s_all_seeds=num_seeds * steps / many_t,
        time_all_seeds_over_one_seed=many_t / one_t, speedup_vmapped_over_sequential=num_seeds * one_t / many_t)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="trex_stage1")
    parser.add_argument("--num-envs", type=int, default=64, help="envs per seed")
    parser.add_argument("--num-seeds", type=int, default=8)
    parser.add_argument("--updates", type=int, default=5, help="PPO updates per timed call")
    parser.add_argument("--repeats", type=int, default=3, help="alternating timed calls of each program")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="config override, as in ppo_mjx")
    args = parser.parse_args()

    training.enable_compilation_cache()
    result = measure(args.env, args.num_envs, args.num_seeds, args.updates, args.repeats, parse_overrides(args.set))
    result |= dict(command=" ".join(["python", "benchmarks/seeds.py", *sys.argv[1:]]), date=time.strftime("%Y-%m-%d"),
                   machine=runs.machine())
    print(json.dumps(result, indent=1))
    path = os.path.join(ROOT, "results", f"seeds_vmap_{args.env}_{jax.default_backend()}_{args.num_envs}envs_"
                                         f"{args.num_seeds}seeds{runs.overrides_suffix(args.set)}.json")
    runs.atomic_write(path, json.dumps(result, indent=1) + "\n")
    one_t, many_t = np.median(result["seconds_one_seed"]), np.median(result["seconds_all_seeds"])
    print(f"{args.num_seeds} seeds vmapped: {many_t:.2f} s per {args.updates} updates; one seed: {one_t:.2f} s, "
          f"x{args.num_seeds} = {args.num_seeds * one_t:.2f} s; speedup {args.num_seeds * one_t / many_t:.2f}")
    print(f"-> {path}")


if __name__ == "__main__":
    main()
