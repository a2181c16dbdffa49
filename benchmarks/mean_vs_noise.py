"""Why does a stage-1 policy's mean action stand less often than its sampled actions (issue 19)? Plays each committed
stage-1 export in plain MuJoCo (play.py's loop, no JAX) on the same fresh episodes (same seed: same starts and push
directions) under one change at a time:

- mean: the Gaussian's mean, as the export and play.py act;
- sampled: the mean plus Gaussian noise with the policy's own learned std (what training and the gates saw);
- sampled, correlation R (with --correlations R ...): the same noise, AR(1) in time with lag-1 correlation R, as
  training with `action_noise_correlation` R explores (ppo_mjx.exploring_gaussian): as large, but without the
  step-to-step jitter;
- noise 0.05, noise 0.1: the mean plus noise of that std on every action dimension;
- noise alone (and noise alone, correlation R): zero action plus white (or AR(1)) noise of the std training starts
  with, the do-nothing rule's second baseline (benchmarks/push_ranges.py judges it in MJX, white);
- solver: the mean, MuJoCo's solver at 10 iterations and 20 line-search iterations (the models use 2 and 6);
- friction x0.5, friction x2: the mean, the sliding friction of the floor and the feet halved or doubled.

    python benchmarks/mean_vs_noise.py [--episodes 32] [--seed 2000000]   # writes results/mean_vs_noise_cpu.json
    python benchmarks/mean_vs_noise.py --correlations 0.5 0.7 0.9 --out results/mean_vs_noise_correlated_cpu.json
    python benchmarks/mean_vs_noise.py CURRICULUM CURRICULUM CURRICULUM ...   # trex, velociraptor, brachiosaurus
"""

import argparse
import copy
import dataclasses
import json
import os
import sys
import time
import types

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import files  # noqa: E402
import play  # noqa: E402
import runs  # noqa: E402
from benchmarks.play_vs_evaluate import SPECIES, stage1  # noqa: E402


def learned_std(folder):
    """exp(log_std) of the committed checkpoint's policy."""
    policy = runs.read_checkpoint(os.path.join(folder, runs.CHECKPOINT))["policy"]
    return np.exp(next(v for k, v in policy.items() if k.endswith("['log_std']")))


def acting(exported, act):
    """`exported` with its policy replaced by `act` (obs -> action)."""
    return types.SimpleNamespace(**{**vars(exported), "act": act})


def with_noise(exported, std, seed, correlation=0.0):
    """`exported` acting with its mean plus Gaussian noise of `std` (an array per action dimension, or a number),
    white or AR(1) with lag-1 `correlation` (N(0, std^2) at every step either way)."""
    rng = np.random.default_rng(seed)
    # AR(1) noise starts in its stationary law; white noise draws exactly what it drew before correlations existed
    noise = rng.standard_normal(exported.mj_model.nu) if correlation else np.zeros(exported.mj_model.nu)

    def act(obs):
        nonlocal noise
        noise = correlation * noise + np.sqrt(1.0 - correlation**2) * rng.standard_normal(exported.mj_model.nu)
        return exported.act(obs) + std * noise

    return acting(exported, act)


def zero_action(exported):
    """`exported` acting with zero action: every actuator at its home target."""
    return acting(exported, lambda obs: np.zeros(exported.mj_model.nu))


def with_model(exported, change):
    """`exported` driving a copy of its model that `change(mj_model)` edits."""
    mj_model = copy.copy(exported.mj_model)
    change(mj_model)
    return dataclasses.replace(exported, mj_model=mj_model)


def set_solver(mj_model):
    mj_model.opt.iterations, mj_model.opt.ls_iterations = 10, 20


def scale_friction(scale):
    def change(mj_model):
        mj_model.geom_friction[:, 0] *= scale

    return change


def variants(folder, seed, correlations=()):
    """{name: exported policy, changed as the docstring says}."""
    plain, std = play.load_exported(folder), learned_std(folder)
    initial_std = np.exp(plain.config["init_log_std"])
    return {"mean": plain, "sampled": with_noise(plain, std, seed),
            **{f"sampled, correlation {r:g}": with_noise(plain, std, seed, r) for r in correlations},
            "noise alone": with_noise(zero_action(plain), initial_std, seed),
            **{f"noise alone, correlation {r:g}": with_noise(zero_action(plain), initial_std, seed, r)
               for r in correlations},
            "noise 0.05": with_noise(plain, 0.05, seed), "noise 0.1": with_noise(plain, 0.1, seed),
            "solver": with_model(plain, set_solver), "friction x0.5": with_model(plain, scale_friction(0.5)),
            "friction x2": with_model(plain, scale_friction(2.0))}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curricula", nargs="*", help="curriculum folders, in the order trex, velociraptor, "
                                                     "brachiosaurus (default: the committed ones)")
    parser.add_argument("--episodes", type=int, default=32)
    parser.add_argument("--seed", type=int, default=2_000_000)
    parser.add_argument("--correlations", type=float, nargs="*", default=[], metavar="R",
                        help="also sample with AR(1) noise of these lag-1 correlations")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "mean_vs_noise_cpu.json"))
    args = parser.parse_args(argv)
    table = {}
    for species, curriculum in zip(SPECIES, args.curricula or [None] * len(SPECIES)):
        folder = stage1(species, curriculum)
        table[species] = {"folder": os.path.relpath(folder, ROOT),
                          "learned_std_mean": float(learned_std(folder).mean())}
        for name, exported in variants(folder, args.seed + 1, args.correlations).items():
            summary, _ = play.play_episodes(exported, args.episodes, args.seed)
            table[species][name] = {k: summary[k] for k in ("success_rate", "episode_length", "pelvis_height_mean")}
            print(f"{species:>14} {name:>12}: success {summary['success_rate']:.2f}  length "
                  f"{summary['episode_length']:.0f}", flush=True)
    record = dict(command="python benchmarks/mean_vs_noise.py " + " ".join(argv if argv is not None else sys.argv[1:]),
                  date=time.strftime("%Y-%m-%d"), episodes=args.episodes, seed=args.seed,
                  machine=files.host(["mujoco", "onnxruntime", "numpy"]), stage1=table)
    files.atomic_write(args.out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
