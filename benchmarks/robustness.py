"""The gates against the do-nothing policy, and stage-1 policies against pushes stronger than they trained on.

    python benchmarks/robustness.py                                   # zero action on every species' gates
    python benchmarks/robustness.py results/trex_curriculum_cpu_seed0 results/velociraptor_curriculum_cpu_seed0

Zero action (hold the home pose) runs every stage's gate evaluation with each species' default config, over
`--episodes` fresh episodes from a seed apart from training's and the gates' (the same starts and pushes for every
policy). Gates evaluate sampled actions, so on stage 1 so does noise alone: zero-mean Gaussian actions at the
species' initial exploration std. A stage-1 gate means something only if both fail it (at most 0.3 success): on the
Brachiosaurus, noise alone stood 97% of episodes under pushes that zero action stood 12% of. Given curriculum folders,
each one's stage-1 policy (sampled actions, as trained and gated), zero action and noise alone are compared at 1x,
1.5x and 2x its training push speed. Writes
results/robustness.json and results/robustness.md (where it ran, the command, wall time).
"""

import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import evaluate  # noqa: E402  first: it chooses the log level and OpenGL backend before JAX and MuJoCo load
import jax  # noqa: E402

import envs  # noqa: E402
import evaluation  # noqa: E402
import ppo_mjx  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import CONFIGS, curriculum_stages, get_config  # noqa: E402

DO_NOTHING_MAX = 0.3  # the most a stage-1 gate may let a do-nothing policy reach
PUSH_SCALES = (1.0, 1.5, 2.0)
WHO = ("trained", "zero", "noise")  # the policies compared under stronger pushes


def noise_policy(env, std):
    """(obs, key) -> zero-mean Gaussian actions of `std`: doing nothing, with exploration noise."""
    return lambda obs, key: std * jax.random.normal(key, obs.shape[:-1] + (env.action_size,))


def summarize(name, config, policy, episodes, seed):
    """Evaluation summary in env `name` with `config` of `policy`: a checkpoint's path, "zero" or "noise"."""
    env = envs.env_from_config(name, config)
    if policy == "zero":
        act = evaluation.zero_policy(env)
    elif policy == "noise":
        act = noise_policy(env, math.exp(config["init_log_std"]))
    else:
        act = ppo_mjx.evaluation_policy(config, env.action_size,
                                        **training.load_policy(policy, runs.read_checkpoint(policy), config, env))
    return evaluation.evaluation_summary(env, evaluation.evaluate(env, act, jax.random.key(seed), episodes)[0])


def zero_action_gates(episodes, seed):
    """A row per stage of every species: the gate, and what zero action scores on its metrics."""
    rows = []
    for species in sorted({name.rsplit("_stage", 1)[0] for name in CONFIGS}):
        for stage, name in enumerate(curriculum_stages(species), start=1):
            config, gate = get_config(name), get_config(name)["gate"]["min"]
            row = dict(env=name, stage=stage, gate=gate)
            for policy in ("zero", "noise") if stage == 1 else ("zero",):
                summary = summarize(name, config, policy, episodes, seed)
                row[policy] = {k: summary[k] for k in gate} | dict(passes=all(summary[k] >= v for k, v in gate.items()))
            rows.append(row)
            print(f"{name}: gate {gate}, " + ", ".join(f"{p} {row[p]}" for p in ("zero", "noise") if p in row),
                  flush=True)
    return rows


def push_robustness(folder, episodes, seed):
    """A row per push scale: the curriculum's stage-1 policy and zero action at that multiple of its push speed."""
    state = json.load(open(os.path.join(folder, "curriculum.json")))
    name = curriculum_stages(state["species"])[0]
    path = os.path.join(folder, name, runs.CHECKPOINT)
    _, trained_config, _ = evaluate.checkpoint_settings(path, None, {})
    rows = []
    for scale in PUSH_SCALES:
        config = dict(trained_config, push_speed=scale * trained_config["push_speed"])
        summaries = {who: summarize(name, config, path if who == "trained" else who, episodes, seed) for who in WHO}
        rows.append(dict(species=state["species"], folder=os.path.relpath(folder, ROOT), scale=scale,
                         push_speed=config["push_speed"], push_interval=config["push_interval"],
                         **{f"{who}_{k}": s[k] for who, s in summaries.items()
                            for k in ("success_rate", "episode_length")}))
        print(f"{name} pushes x{scale}: " + ", ".join(f"{who} {s['success_rate']:.2f}" for who, s in summaries.items()),
              flush=True)
    return rows


def markdown(report):
    lines = ["# Gates and pushes against the do-nothing policy", "",
             f"`{report['command']}`: {report['machine']['backend']} ({report['machine']['cpu']}), jax "
             f"{report['machine']['versions']['jax']}, mujoco {report['machine']['versions']['mujoco']}, "
             f"{report['date']}, {report['wall_s']:.0f} s; {report['episodes']} episodes per row, seed "
             f"{report['seed']}.", "",
             "## Zero action (hold the home pose) and noise alone on every gate", "",
             "| env | gate | zero action | noise alone (initial exploration std) |", "|---|---|---|---|"]
    for r in report["gates"]:
        gate = ", ".join(f"{k} >= {v:g}" for k, v in r["gate"].items())
        scored = lambda p: "-" if p not in r else ", ".join(
            f"{k} {v:.2f}" for k, v in r[p].items() if k != "passes") + (" (passes)" if r[p]["passes"] else " (fails)")
        lines.append(f"| {r['env']} | {gate} | {scored('zero')} | {scored('noise')} |")
    if report["pushes"]:
        lines += ["", "## Stage-1 policies against stronger pushes", "",
                  "Success: the share of episodes standing at the time limit. Length: mean control steps before a "
                  "fall (500 = never fell).", "",
                  "| species | push (m/s, every N steps) | success: trained / zero action / noise alone | "
                  "length: trained / zero action / noise alone |", "|---|---|---|---|"]
        for r in report["pushes"]:
            three = lambda key, form: " / ".join(format(r[f"{who}_{key}"], form) for who in WHO)
            lines.append(f"| {r['species']} | {r['push_speed']:.2f} (x{r['scale']:g}), {r['push_interval']} | "
                         f"{three('success_rate', '.2f')} | {three('episode_length', '.0f')} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curricula", nargs="*", help="curriculum folders whose stage-1 policies to push harder")
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=2_000_000, help="apart from training's (0..) and the gates' (1e6+)")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "robustness"), help="path without extension")
    args = parser.parse_args(argv)
    training.enable_compilation_cache()
    start = time.monotonic()
    gates = zero_action_gates(args.episodes, args.seed)
    pushes = [row for folder in args.curricula for row in push_robustness(folder, args.episodes, args.seed)]
    report = dict(command=" ".join(["python benchmarks/robustness.py", *(argv if argv is not None else sys.argv[1:])]),
                  date=time.strftime("%Y-%m-%d"), machine=runs.machine(), episodes=args.episodes, seed=args.seed,
                  wall_s=time.monotonic() - start, gates=gates, pushes=pushes)
    runs.atomic_write(args.out + ".json", json.dumps(report, indent=1) + "\n")
    runs.atomic_write(args.out + ".md", markdown(report))
    print(markdown(report))
    weak = [f"{r['env']} ({p})" for r in gates if r["stage"] == 1 for p in ("zero", "noise")
            if r[p]["success_rate"] > DO_NOTHING_MAX]
    if weak:
        print(f"doing nothing reaches more than {DO_NOTHING_MAX} success on the stage-1 gate of {', '.join(weak)}")


if __name__ == "__main__":
    main()
