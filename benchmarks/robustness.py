"""The gates against the do-nothing policy, and stage-1 policies against pushes and dynamics beyond their training.

    python benchmarks/robustness.py --out results/robustness_gates    # the do-nothing policies on every gate
    python benchmarks/robustness.py results/trex_curriculum_cpu_seed0 results/velociraptor_curriculum_cpu_seed0 \
        results/brachiosaurus_curriculum_cpu_seed0    # and the stage-1 policies beyond their training (--no-gates:
                                                      # those alone); writes results/robustness.json, .md and .png

Zero action (hold the home pose) runs every stage's gate evaluation with each species' default config (randomization
and pushes as trained), over `--episodes` fresh episodes from a seed apart from training's and the gates' (the same
starts, pushes and draws for every policy). On stage 1 so does noise alone: zero-mean Gaussian actions at the
species' initial exploration std. A stage-1 gate means something only if both fail it (at most 0.3 success): on the
Brachiosaurus, noise alone once stood 97% of episodes under pushes that zero action stood 12% of. Gates judge the
Gaussian's mean action (`eval_actions`).

Given curriculum folders, each one's stage-1 policy, with its mean action and with sampled actions, and zero action
are compared against push speed, from 0 to 2.5x the top of its training range (`--points` speeds, each push at that
speed, the waits as trained), and against dynamics outside the training ranges, each changed alone at the training
pushes (friction 0.25, body masses x1.25, kp x0.8, a 2-step action delay); the three policies run side by side in
one program per variant, each on its own `--episodes` episodes from the same seed. Writes results/robustness.json,
results/robustness.md (where it ran, the command, wall time) and results/robustness.png (the curves).
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
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import curriculum  # noqa: E402
import envs  # noqa: E402
import evaluation  # noqa: E402
import figures  # noqa: E402
import ppo_mjx  # noqa: E402
import randomization  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import as_range, curriculum_stages, get_config, species_names, with_overrides  # noqa: E402

DO_NOTHING_MAX = 0.3  # the most a stage-1 gate may let a do-nothing policy reach
TOP_SCALE = 2.5  # pushes up to this multiple of the top of the training range
WHO = ("mean", "sampled", "zero")  # the policies compared beyond their training
# Dynamics outside every training range, each changed alone (randomize overrides; a number is a fixed value).
DYNAMICS = {"friction 0.25": {"randomize.friction": 0.25}, "mass x1.25": {"randomize.body_mass": 1.25},
            "kp x0.8": {"randomize.kp": 0.8}, "delay 2 steps": {"randomize.action_delay": 2}}


def noise_policy(env, std):
    """(obs, key) -> zero-mean Gaussian actions of `std`: doing nothing, with exploration noise."""
    return lambda obs, key: std * jax.random.normal(key, obs.shape[:-1] + (env.action_size,))


def summarize(name, config, policy, episodes, seed):
    """Evaluation summary in env `name` with `config` of `policy`: "zero" or "noise"."""
    env = envs.env_from_config(name, config)
    act = evaluation.zero_policy(env) if policy == "zero" else noise_policy(env, math.exp(config["init_log_std"]))
    return evaluation.evaluation_summary(env, evaluation.evaluate(env, act, jax.random.key(seed), episodes)[0])


def success_of_each(name, config, checkpoint, episodes, seed):
    """{policy: success rate} of WHO (the checkpoint's mean and sampled actions, zero action) in env `name` with
    `config`, side by side in one program (one compile): `episodes` envs each, their starts drawn from one `seed`."""
    env = envs.env_from_config(name, config)
    loaded = training.load_policy(checkpoint, runs.read_checkpoint(checkpoint), config, env)
    mean, sampled = (ppo_mjx.evaluation_policy(config, env.action_size, **loaded, mean=m) for m in (True, False))
    who = np.repeat(np.arange(len(WHO)), episodes)[:, None]  # WHO's index of each env

    def act(obs, key):
        return jnp.where(who == 0, mean(obs, key), jnp.where(who == 1, sampled(obs, key), 0.0))

    success = env.episode_success(evaluation.evaluate(env, act, jax.random.key(seed), len(WHO) * episodes)[0])
    return {w: float(np.mean(success[i * episodes:(i + 1) * episodes])) for i, w in enumerate(WHO)}


def zero_action_gates(episodes, seed):
    """A row per stage of every species: the gate, and what zero action scores on its metrics."""
    rows = []
    for species in species_names():
        for stage, name in enumerate(curriculum_stages(species), start=1):
            config = get_config(name)
            gate = config["gate"]
            row = dict(env=name, stage=stage, gate=gate_bounds(gate))
            for policy in ("zero", "noise") if stage == 1 else ("zero",):
                stressed = None
                if gate.get("stress"):  # the gate's stress test too: its settings applied
                    stressed = summarize(name, with_overrides(config, gate["stress"]["settings"]), policy, episodes,
                                         seed)
                decision = curriculum.gate_decision(gate, summarize(name, config, policy, episodes, seed), [], stressed)
                stress = {f"{k} (stress)": v for k, v in (decision.get("stress_metrics") or {}).items()}
                row[policy] = decision["metrics"] | stress | dict(passes=decision["passed"])
            rows.append(row)
            print(f"{name}: gate {gate}, " + ", ".join(f"{p} {row[p]}" for p in ("zero", "noise") if p in row),
                  flush=True)
    return rows


def gate_bounds(gate):
    """{metric: ">= threshold" or "<= threshold"} of a gate, its stress test's metrics named "<metric> (stress:
    <settings>)"."""
    bounds = ({k: f">= {v:g}" for k, v in gate["min"].items()}
              | {k: f"<= {v:g}" for k, v in gate.get("max", {}).items()})
    stress = gate.get("stress")
    if stress:
        settings = ", ".join(f"{k}={v}" for k, v in stress["settings"].items())
        stress_bounds = gate_bounds(dict(min=stress.get("min", {}), max=stress.get("max", {})))
        bounds |= {f"{k} (stress: {settings})": bound for k, bound in stress_bounds.items()}
    return bounds


def stage1_policy(folder):
    """(species, env name, checkpoint path, its config) of a curriculum folder's stage-1 policy."""
    try:
        species = json.load(open(os.path.join(folder, "curriculum.json")))["species"]
    except (OSError, ValueError, KeyError):
        print(f"error: {folder} is not a curriculum folder with a readable curriculum.json", file=sys.stderr)
        sys.exit(2)
    name = curriculum_stages(species)[0]
    path = os.path.join(folder, name, runs.CHECKPOINT)
    return species, name, path, evaluate.checkpoint_settings(path, None, {})[1]


def beyond_training(folder, points, episodes, seed):
    """Rows of success rates of the folder's stage-1 policy (WHO) at each push speed and under each of DYNAMICS."""
    species, name, path, trained = stage1_policy(folder)
    low, top = as_range(trained["push_speed"])
    randomized = trained["randomize"]["enabled"]
    variants = [("push", speed, {"push_speed": float(speed)}) for speed in np.linspace(0, TOP_SCALE * top, points)]
    for label, change in DYNAMICS.items():  # what the policy never saw; the rest as trained (or off, if it was)
        others = {} if randomized else {f"randomize.{k}": None for k in randomization.RANGES} | {
            f"randomize.obs_noise.{group}": 0.0 for group in trained["randomize"]["obs_noise"]}
        variants.append(("dynamics", label, others | change | {"randomize.enabled": True}))
    rows = []
    for kind, value, change in variants:
        config = with_overrides(trained, change)
        success = success_of_each(name, config, path, episodes, seed)
        rows.append(dict(species=species, folder=os.path.relpath(folder, ROOT), kind=kind, value=value,
                         training_push=[low, top], push_interval=trained["push_interval"], **success))
        print(f"{name} {kind} {value if kind == 'dynamics' else f'{value:.2f} m/s'}: "
              + ", ".join(f"{who} {success[who]:.2f}" for who in WHO), flush=True)
    return rows


def plot(rows):
    """PNG bytes: per species, success against push speed (the training range shaded) and under each dynamics
    change."""
    species = list(dict.fromkeys(r["species"] for r in rows))
    height = 3.4 * len(species) + 0.8
    fig, axes = figures.figure(len(species), 2, (11, height))
    fig.subplots_adjust(top=1 - 0.75 / height, bottom=0.55 / height, hspace=0.45)  # room for the titles and labels
    for row_axes, name in zip(np.atleast_2d(axes), species):
        mine = [r for r in rows if r["species"] == name]
        pushes, dynamics = [r for r in mine if r["kind"] == "push"], [r for r in mine if r["kind"] == "dynamics"]
        low, top = mine[0]["training_push"]
        row_axes[0].axvspan(low, top, color="0.9", label="training pushes")
        row_axes[0].axvline(1.5 * top, color="0.5", linestyle=":", label="1.5x the top")
        for color, who in enumerate(WHO):
            row_axes[0].plot([r["value"] for r in pushes], [r[who] for r in pushes], "o-", color=f"C{color}",
                             label=who if who == "zero" else f"{who} action")
            row_axes[1].bar(np.arange(len(dynamics)) + (color - 1) * 0.27, [r[who] for r in dynamics], 0.27,
                            color=f"C{color}")
        row_axes[0].set(title=f"{name}: pushes", xlabel="push speed (m/s)", ylabel="success", ylim=(-0.05, 1.05))
        row_axes[1].set(title=f"{name}: dynamics outside training, training pushes", ylim=(0, 1.05),
                        xticks=np.arange(len(dynamics)), xticklabels=[r["value"] for r in dynamics])
        row_axes[0].legend(fontsize=7)
    return figures.png(fig, "Stage-1 policies beyond their training (success: standing at the time limit)")


def markdown(report):
    title = {(True, True): "Gates and stage-1 policies against the do-nothing policy and beyond their training",
             (True, False): "Gates against the do-nothing policy",
             (False, True): "Stage-1 policies beyond their training, against the do-nothing policy"}
    lines = [f"# {title[bool(report['gates']), bool(report['beyond'])]}", "",
             f"`{report['command']}`: {report['machine']['backend']} ({report['machine']['cpu']}), jax "
             f"{report['machine']['versions']['jax']}, mujoco {report['machine']['versions']['mujoco']}, "
             f"{report['date']}, {report['wall_s']:.0f} s; {report['episodes']} episodes per row, seed "
             f"{report['seed']}."]
    if report["gates"]:
        lines += ["", "## Zero action (hold the home pose) and noise alone on every gate", "",
                  "| env | gate | zero action | noise alone (initial exploration std) |", "|---|---|---|---|"]
    for r in report["gates"]:
        gate = ", ".join(f"{k} {bound}" for k, bound in r["gate"].items())
        scored = lambda p: "-" if p not in r else ", ".join(
            f"{k} {v:.2f}" for k, v in r[p].items() if k != "passes") + (" (passes)" if r[p]["passes"] else " (fails)")
        lines.append(f"| {r['env']} | {gate} | {scored('zero')} | {scored('noise')} |")
    if report["beyond"]:
        lines += ["", "## Stage-1 policies beyond their training", "",
                  "Success: the share of episodes standing at the time limit. Pushes: every push at that speed, the "
                  "waits between pushes as trained; dynamics: one change outside the training ranges, at the "
                  f"training pushes. ![curves]({os.path.basename(report['out'])}.png)", "",
                  "| species | training pushes (m/s) | variant | mean action | sampled actions | zero action |",
                  "|---|---|---|---:|---:|---:|"]
        for r in report["beyond"]:
            variant = f"push {r['value']:.2f} m/s" if r["kind"] == "push" else r["value"]
            lines.append(f"| {r['species']} | {r['training_push'][0]:g}-{r['training_push'][1]:g} | {variant} | "
                         + " | ".join(f"{r[who]:.2f}" for who in WHO) + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curricula", nargs="*", help="curriculum folders whose stage-1 policies to take further")
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=2_000_000, help="apart from training's (0..) and the gates' (1e6+)")
    parser.add_argument("--points", type=int, default=6,
                        help="push speeds from 0 to 2.5x the top of the training range")
    parser.add_argument("--no-gates", action="store_true", help="skip the zero-action table of every gate")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "robustness"), help="path without extension")
    args = parser.parse_args(argv)
    training.enable_compilation_cache()
    start = time.monotonic()
    gates = [] if args.no_gates else zero_action_gates(args.episodes, args.seed)
    beyond = [row for folder in args.curricula
              for row in beyond_training(folder, args.points, args.episodes, args.seed)]
    report = dict(command=" ".join(["python benchmarks/robustness.py", *(argv if argv is not None else sys.argv[1:])]),
                  date=time.strftime("%Y-%m-%d"), machine=runs.machine(), episodes=args.episodes, seed=args.seed,
                  wall_s=time.monotonic() - start, out=os.path.relpath(args.out, ROOT), gates=gates, beyond=beyond)
    runs.atomic_write(args.out + ".json", json.dumps(report, indent=1) + "\n")
    runs.atomic_write(args.out + ".md", markdown(report))
    if beyond:
        runs.atomic_write(args.out + ".png", plot(beyond))
    print(markdown(report))
    weak = [f"{r['env']} ({p})" for r in gates if r["stage"] == 1 for p in ("zero", "noise")
            if r[p]["success_rate"] > DO_NOTHING_MAX]
    if weak:
        print(f"doing nothing reaches more than {DO_NOTHING_MAX} success on the stage-1 gate of {', '.join(weak)}")


if __name__ == "__main__":
    main()
