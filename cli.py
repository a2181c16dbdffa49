"""The training command line (`python ppo_mjx.py ...` hands over to `main` here).

    python ppo_mjx.py --env trex_stage1 --seed 0
    python ppo_mjx.py --env trex --curriculum --seed 0
    python ppo_mjx.py --resume results/runs/trex_curriculum_seed0_20261122-101500    # at its stage and update
    python ppo_mjx.py --env trex_stage1 --num-envs 128 --total-timesteps 1000000 --set lr=1e-4
    python ppo_mjx.py --resume results/runs/trex_stage1_seed0_20261122-101500
    python ppo_mjx.py --env trex_stage1 --num-seeds 8 --sweep lr=1e-4,3e-4 --sweep ent_coef=0,1e-3   # one program
    python ppo_mjx.py --policy-only results/trex_curriculum_cpu_seed0     # finished runs' checkpoints, policy alone

On a machine without an accelerator the defaults are sized for its CPU (configs/ppo.py, CPU_DEFAULTS and
CPU_CURRICULUM_DEFAULTS); flags win.
`python ppo_mjx.py` quiets XLA's C++ warnings before JAX loads (startup.py).
"""

import argparse
import ast
import itertools
import math
import os
import sys
import time

import jax

import curriculum
import envs
import runs
import training
from configs import (CONFIGS, CPU_CURRICULUM_DEFAULTS, CPU_DEFAULTS, ConfigError, curriculum_stages, flatten,
                     get_config, parse_overrides)
from ppo_mjx import HYPERPARAMETERS

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
SWEEPABLE = HYPERPARAMETERS  # and every reward weight: the numbers the trainer reads as traced arrays


def is_sweepable(key):
    return key in SWEEPABLE or key.startswith("reward_weights.")


def parse_sweeps(pairs, config):
    """`KEY=V1,V2,...` strings (brackets optional) -> {key: [values]}, every key sweepable and in `config`, every
    value a finite number."""
    sweeps = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"sweep '{pair}' is not KEY=V1,V2,...")
        if key not in dict(flatten(config)):
            raise ConfigError(f"unknown config key '{key}' in --sweep")
        if not is_sweepable(key):
            raise ConfigError(f"cannot sweep '{key}': it fixes array shapes or program structure, so it must be the "
                              f"same in every member; sweepable: {', '.join(SWEEPABLE)}, reward_weights.*")
        if key in sweeps:
            raise ConfigError(f"--sweep lists '{key}' twice")
        values = []
        for item in text.strip().removeprefix("[").removesuffix("]").split(","):
            try:
                value = ast.literal_eval(item.strip())
            except (ValueError, SyntaxError):
                value = None
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ConfigError(f"sweep '{pair}': '{item.strip()}' is not a finite number")
            values.append(float(value))
        if len(set(values)) < len(values):
            raise ConfigError(f"sweep '{pair}' repeats a value")
        sweeps[key] = values
    return sweeps


def sweep_grid(sweeps):
    """Every combination of the swept values, as {key: value} settings (the first key varies slowest)."""
    return [dict(zip(sweeps, values)) for values in itertools.product(*sweeps.values())]


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Train PPO on an MJX dinosaur env (one jitted train function).")
    parser.add_argument("--env", help=f"env name (default trex_stage1), one of: {', '.join(sorted(CONFIGS))}")
    parser.add_argument("--curriculum", action="store_true",
                        help="--env names a species (trex, velociraptor, brachiosaurus): train its stages in order, "
                             "each until its gate passes or its step budget runs out, warm-starting from the last")
    parser.add_argument("--seed", type=int, help="random seed, the first of --num-seeds (default 0)")
    parser.add_argument("--num-seeds", type=int, help="train seeds SEED .. SEED+N-1 as one vmapped program")
    parser.add_argument("--sweep", action="append", default=[], metavar="KEY=V1,V2,...",
                        help="train every combination of the swept values (x every seed) as one vmapped program; "
                             f"repeatable; sweepable: {', '.join(SWEEPABLE)}, reward_weights.*")
    parser.add_argument("--num-envs", type=int, help="parallel envs (config key num_envs)")
    parser.add_argument("--total-timesteps", type=int, help="env steps to train for (config key total_timesteps)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override any config key, e.g. --set lr=1e-4 --set reward_weights.posture=1.0; "
                             "repeatable; the value must have the default's type")
    parser.add_argument("--out", help="run folder (default results/runs/<env>_seed<seed>_<time>), or group folder "
                                      "with --num-seeds/--sweep")
    parser.add_argument("--resume", metavar="DIR", help="continue a run, group or curriculum folder from its "
                                                         "checkpoints")
    parser.add_argument("--policy-only", metavar="DIR",
                        help="drop the train state from every finished run's checkpoint under DIR (a run, group or "
                             "curriculum folder; ~10x smaller, to commit or share it): it still evaluates and "
                             "warm-starts, but can no longer resume")
    parser.add_argument("--wandb", action="store_true", help="also log to Weights & Biases (needs `pip install wandb`)")
    parser.add_argument("--distributed", nargs="?", const="auto", metavar="COORDINATOR,NUM_PROCESSES,PROCESS_ID",
                        help="this process is one of a multi-host run (start the same command on every host): "
                             "jax.distributed.initialize() with arguments from Slurm, Open MPI or a TPU pod, or "
                             "given here, e.g. 10.0.0.1:1234,2,0")
    return parser.parse_args(argv)


def start_distributed(spec):
    """Join a multi-host run: afterwards jax.devices() lists every host's devices, and the run's layout spans them.
    `spec` is "auto" (the cluster tells) or "COORDINATOR,NUM_PROCESSES,PROCESS_ID"."""
    jax.config.update("jax_cpu_collectives_implementation", "gloo")  # CPU hosts; GPUs use NCCL
    if spec == "auto":
        arguments = ()
    else:
        parts = spec.split(",")
        if len(parts) != 3 or not parts[1].isdigit() or not parts[2].isdigit():
            raise ConfigError(f"--distributed expects COORDINATOR,NUM_PROCESSES,PROCESS_ID (e.g. 10.0.0.1:1234,2,0), "
                              f"got '{spec}'")
        arguments = (parts[0], int(parts[1]), int(parts[2]))
    try:
        jax.distributed.initialize(*arguments)
    except (ValueError, RuntimeError) as error:
        raise ConfigError(f"--distributed: {str(error).splitlines()[0]}") from None


def overrides_from_args(args, names, cpu_defaults=CPU_DEFAULTS):
    """The config overrides --set, --num-envs and --total-timesteps ask for, over the machine's defaults: on a
    machine without an accelerator, `cpu_defaults` for every key that a config of `names` has and no flag sets (one
    printed line says which)."""
    overrides = parse_overrides(args.set)
    if args.num_envs is not None:
        overrides["num_envs"] = args.num_envs
    if args.total_timesteps is not None:
        overrides["total_timesteps"] = args.total_timesteps
    if jax.default_backend() != "cpu":
        return overrides
    known = {key for name in names if name in CONFIGS for key, _ in flatten(CONFIGS[name])}
    sized = {k: v for k, v in cpu_defaults.items() if k in known and k not in overrides}
    if sized:
        print(f"no GPU found: defaults sized for this CPU ({', '.join(f'{k}={v:,}' for k, v in sized.items())}); "
              f"the GPU defaults are in configs/; flags such as --num-envs 4096 or --set eval_episodes=64 override",
              flush=True)
    return sized | overrides


def refuse_with_resume(args, allowed=()):
    """ConfigError when flags that would change a resumed run's saved settings are given with --resume."""
    given = [flag for flag, value in [("--env", args.env), ("--seed", args.seed), ("--num-seeds", args.num_seeds),
                                      ("--sweep", args.sweep or None), ("--num-envs", args.num_envs),
                                      ("--total-timesteps", args.total_timesteps), ("--set", args.set or None),
                                      ("--out", args.out)] if value is not None and flag not in allowed]
    if given:
        raise ConfigError(f"--resume continues runs with their saved configs; drop {', '.join(given)}")


def settings_from_args(args):
    """(env name, run specs, group folder or None) from the command line, or from a folder's saved configs with
    --resume. Several seeds or a sweep make a group: one folder with a run folder per member."""
    if args.resume:
        refuse_with_resume(args)
        return runs.read_run_settings(args.resume)
    env_name = args.env or "trex_stage1"
    config = get_config(env_name, overrides_from_args(args, [env_name]))
    seed = 0 if args.seed is None else args.seed
    num_seeds = 1 if args.num_seeds is None else args.num_seeds
    if num_seeds < 1:
        raise ConfigError(f"--num-seeds must be at least 1, got {num_seeds}")
    grid = sweep_grid(parse_sweeps(args.sweep, config))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    if not args.sweep and num_seeds == 1:
        out = args.out or os.path.join(RESULTS_DIR, "runs", f"{env_name}_seed{seed}_{stamp}")
        return env_name, [runs.RunSpec(os.path.basename(out), config, seed, out, {})], None
    kind = "sweep" if args.sweep else f"{num_seeds}seeds"
    group_out = args.out or os.path.join(RESULTS_DIR, "runs", f"{env_name}_{kind}_seed{seed}_{stamp}")
    return env_name, runs.group_runs(config, seed, num_seeds, grid, group_out), group_out


def curriculum_from_args(args):
    """(species, seed, curriculum folder, overrides, resume) for --curriculum, or for --resume of a curriculum folder
    (whose species --env, if given, must name)."""
    refused = [flag for flag, value in [("--num-seeds", args.num_seeds), ("--sweep", args.sweep or None),
                                        ("--distributed", args.distributed)] if value is not None]
    if refused:
        raise ConfigError(f"--curriculum trains one run stage by stage; drop {', '.join(refused)}")
    if args.resume:
        refuse_with_resume(args, allowed=("--env",))
        return args.env, None, args.resume, None, True
    if not args.env:
        raise ConfigError("--curriculum needs --env SPECIES, e.g. --env trex")
    names = curriculum_stages(args.env)
    seed = 0 if args.seed is None else args.seed
    out = args.out or os.path.join(RESULTS_DIR, "runs",
                                   f"{args.env}_curriculum_seed{seed}_{time.strftime('%Y%m%d-%H%M%S')}")
    return args.env, seed, out, overrides_from_args(args, names, CPU_CURRICULUM_DEFAULTS), False


def keep_policy_only(folder):
    """Rewrite the finished runs' checkpoints under `folder` with their policies alone, naming each."""
    if not os.path.isdir(folder):
        raise ConfigError(f"--policy-only: {folder} is not a folder")
    rewritten = runs.keep_policy_only(folder)
    for path in rewritten:
        print(f"{path}: policy only, {os.path.getsize(path) / 1e6:.1f} MB")
    if not rewritten:
        print(f"no finished run under {folder} has a train state to drop")


def main(argv=None):
    args = parse_args(argv)
    training.enable_compilation_cache()
    out = None  # the folder a Ctrl-C leaves to resume, once known
    try:
        if args.policy_only:
            return keep_policy_only(args.policy_only)
        if args.curriculum or (args.resume and os.path.exists(os.path.join(args.resume, curriculum.CURRICULUM_FILE))):
            species, seed, out, overrides, resume = curriculum_from_args(args)
            summaries = curriculum.run_curriculum(species, seed, out, overrides, args.wandb, resume)
        else:
            if args.distributed:
                start_distributed(args.distributed)
            env_name, specs, group_out = settings_from_args(args)
            training.check_trainable(specs[0].config)
            env = envs.env_from_config(env_name, specs[0].config)
            out = group_out or specs[0].out
            summaries = training.run_group(env, specs, group_out, args.resume is not None, args.wandb)
    except (ConfigError, runs.CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:  # Ctrl-C while compiling, or a second one: every file keeps its last complete state
        print("stopped by Ctrl-C", file=sys.stderr)
        summaries = None
    if summaries is None:
        print(f"Continue with: python ppo_mjx.py --resume {out}" if out and resumable(out) else
              "Nothing was trained yet: run the same command again", flush=True)
        sys.exit(130)  # stopped by Ctrl-C, as shells report an interrupted command


def resumable(out):
    """Whether `--resume out` has something to continue: a curriculum, or a checkpoint of a run or a group's run."""
    return os.path.exists(os.path.join(out, curriculum.CURRICULUM_FILE)) or any(
        runs.CHECKPOINT in files for _, _, files in os.walk(out))


if __name__ == "__main__":
    main()
