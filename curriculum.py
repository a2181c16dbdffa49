"""A species' curriculum: its stages trained in order, each until its gate passes or its step budget runs out, each
warm-starting from the last. Gates are evaluated between training chunks through training.run_group's `after_chunk`.

Gates (`gate` in a stage config, see configs/stages.py): every `eval_every` updates, once the stage has trained
`min_env_steps` (if given), the policy is evaluated (with its `eval_actions`: the Gaussian's mean by default); an
evaluation passes when every metric in `min` is at least its threshold and every one in `max` at most its own, and,
where the gate has a `stress` test, when the policy then also meets the stress test's bounds in the stage's env with
the stress `settings` applied (e.g. pushes past the training's); the gate passes when `consecutive` evaluations in a
row have passed.

A curriculum folder holds curriculum.json (species, seed, overrides, the sessions that ran it, a record per finished
stage) and a run folder per stage. `--resume` continues it at the stage and update of the stage's last checkpoint,
with the gate decisions made up to that update: it ends as an uninterrupted run would.
"""

import json
import os
import time

import jax.numpy as jnp

import envs
import evaluation
import runs
import training
from configs import CONFIGS, ConfigError, curriculum_stages, flatten, get_config, with_overrides

CURRICULUM_FILE = "curriculum.json"


def stage_configs(species, overrides):
    """(stage env names, their configs) for `species`; each override applies to every stage that has its key."""
    names = curriculum_stages(species)
    keys = [dict(flatten(CONFIGS[name])) for name in names]
    for key in overrides:
        if not any(key in k for k in keys):
            raise ConfigError(f"no stage of '{species}' has config key '{key}'")
    return names, [get_config(name, {k: v for k, v in overrides.items() if k in known})
                   for name, known in zip(names, keys)]


def gate_metric_names(gate):
    """Every metric `gate` bounds, its stress test's included."""
    stress = gate.get("stress") or {}
    return {*gate["min"], *gate.get("max", {}), *stress.get("min", {}), *stress.get("max", {})}


def check_gate(gate, env):
    """ConfigError unless every metric `gate` names is one that `env`'s evaluation reports."""
    known = evaluation.evaluation_metric_names(env)
    unknown = sorted(gate_metric_names(gate) - set(known))
    if unknown:
        raise ConfigError(f"env '{env.name}': the gate names {', '.join(unknown)}, which its evaluation does not "
                          f"report; metrics: {', '.join(known)}")
    if gate["consecutive"] < 1 or gate["eval_every"] < 1:
        raise ConfigError(f"env '{env.name}': gate consecutive and eval_every must be at least 1")
    if gate.get("min_env_steps", 0) < 0:
        raise ConfigError(f"env '{env.name}': gate min_env_steps must be at least 0")


def stress_env(env):
    """The env of `env`'s gate stress test (its config with the stress `settings` applied), or None without one."""
    stress = env.config["gate"].get("stress")
    if not stress:
        return None
    return envs.env_from_config(env.name, with_overrides(env.config, stress["settings"]))


def curriculum_envs(names, configs):
    """(each stage's env, the env of its gate's stress test or None), checked before anything trains: trainable
    config, a valid model (envs.env_from_config), the same observation and action sizes in every stage (a policy must
    carry over), and a gate naming metrics its evaluation reports."""
    for config in configs:
        training.check_trainable(config)
    stage_envs = [envs.env_from_config(name, config) for name, config in zip(names, configs)]
    first = stage_envs[0]
    for env in stage_envs:
        if (env.observation_size, env.action_size) != (first.observation_size, first.action_size):
            raise ConfigError(f"{env.name} has {env.observation_size} observations and {env.action_size} actions, "
                              f"{first.name} {first.observation_size} and {first.action_size}: the stages of a "
                              f"curriculum must share them")
        check_gate(env.config["gate"], env)
    return stage_envs, [stress_env(env) for env in stage_envs]


def failing_metrics(bounds, summary):
    """The metrics of `summary` outside `bounds` (a gate or its stress test): below a `min` or above a `max`."""
    return ([k for k, threshold in bounds["min"].items() if not summary[k] >= threshold]
            + [k for k, threshold in bounds.get("max", {}).items() if not summary[k] <= threshold])


def bounded_metrics(bounds, summary):
    """The metrics of `summary` that `bounds` names."""
    return {k: summary[k] for k in [*bounds["min"], *bounds.get("max", {})]}


def gate_decision(gate, summary, previous, stress_summary=None):
    """One gate evaluation: `summary` passes when every metric of `gate["min"]` is at least its threshold and every one
    of `gate["max"]` (if any) at most its own, and, where the gate has a stress test, `stress_summary` (None: not
    evaluated, which fails) meets its bounds; the gate passes when `gate["consecutive"]` evaluations in a row have
    passed, counting the `previous` decisions."""
    stress = gate.get("stress")
    failing = failing_metrics(gate, summary)
    decision = dict(metrics=bounded_metrics(gate, summary))
    if stress:
        stress_failing = ["stress test"] if stress_summary is None else failing_metrics(stress, stress_summary)
        failing += stress_failing
        decision["stress_metrics"] = None if stress_summary is None else bounded_metrics(stress, stress_summary)
    streak = 0 if failing else (previous[-1]["consecutive"] if previous else 0) + 1
    return decision | dict(passed=not failing, consecutive=streak, gate_passed=streak >= gate["consecutive"])


def make_gate(gate, path, previous=(), stress=None):
    """(after_chunk callback for training.run_group, outcome()): every `eval_every` updates, from `min_env_steps` on,
    the callback evaluates the policy (and, where it passes, again in the `stress` env: the gate's stress test),
    appends the decision to gate.json at `path` and ends training once the gate has passed (at once when the
    `previous` decisions of a resumed stage already passed it); outcome() summarizes the decisions for eval.json."""
    decisions = list(previous)

    def after_chunk(progress):
        if decisions and decisions[-1]["gate_passed"]:
            return True
        if progress.env_steps < gate.get("min_env_steps", 0):
            return False
        if progress.update - (decisions[-1]["update"] if decisions else 0) < gate["eval_every"]:
            return False
        summary = progress.evaluate()[0]
        stress_summary = progress.evaluate(stress)[0] if stress and not failing_metrics(gate, summary) else None
        decision = gate_decision(gate, summary, decisions, stress_summary)
        decisions.append(dict(update=progress.update, env_steps=progress.env_steps, wall_s=progress.wall_s)
                         | decision)
        runs.atomic_write(path, json.dumps(dict(gate=gate, decisions=decisions), indent=1))
        stressed = f", stress test {decision['stress_metrics']}" if decision.get("stress_metrics") else ""
        print(f"gate: {decision['metrics']}{stressed} -> {'pass' if decision['passed'] else 'fail'} "
              f"({decision['consecutive']}/{gate['consecutive']} in a row)", flush=True)
        return decision["gate_passed"]

    def outcome():
        return dict(passed=bool(decisions and decisions[-1]["gate_passed"]), evaluations=len(decisions),
                    **{k: gate[k] for k in ("min", "max", "consecutive", "min_env_steps", "stress") if k in gate})

    return after_chunk, outcome


def decisions_until(path, update):
    """The gate decisions in gate.json at `path` made up to `update` (a resumed stage's checkpoint): later ones are
    made again after the resume."""
    if not os.path.exists(path):
        return []
    try:
        return [d for d in runs.read_json(path)["decisions"] if d["update"] <= update]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"{path} is not a readable gate record ({type(error).__name__})") from None


def restart_exploration(policy, log_std):
    """`policy` ({params, normalizer}) with the Gaussian's log std set to `log_std` everywhere, so that a warm-started
    stage explores its new task (the normalizer's statistics carry over as they are)."""
    params = policy["params"]["params"]
    return dict(policy, params={"params": dict(params, log_std=jnp.full_like(params["log_std"], log_std))})


def stage_record(name, summary, machine):
    """A stage's line in curriculum.json: the gate's outcome, the final evaluation's main metrics and where the stage
    ended."""
    return dict(stage=name, gate_passed=summary["gate"]["passed"], env_steps=summary["env_steps"],
                train_wall_s=summary["train_wall_s"], episode_length=summary["episode_length"],
                forward_speed=summary.get("forward_speed_mean"), success_rate=summary.get("success_rate"),
                gate=summary["gate"], machine=machine_line(machine))


def machine_line(machine):
    """A machine in one line: backend, device, CPU and core count, versions."""
    return (f"{machine['backend']} ({machine['device']}; {machine['cpu']}, {machine['cpu_count']} cores), jax "
            f"{machine['versions']['jax']}, mujoco {machine['versions']['mujoco']}")


def curriculum_markdown(state):
    """The stages as a Markdown table, with the sessions that ran them."""
    lines = [f"# {state['species']} curriculum, seed {state['seed']}", "",
             *[f"- {s['date']}: {'started' if s['from_update'] is None else 'resumed'} at {s['from_stage']}"
               + (f" update {s['from_update']}" if s["from_update"] else "")
               + f", {s['wall_s'] / 60:.0f} min of wall time on {machine_line(s['machine'])}"
               for s in state["sessions"]],
             "",
             "| stage | steps | training wall time (s) | final episode length | forward speed (m/s) | success rate "
             "| gate |",
             "|---|---:|---:|---:|---:|---:|---|"]
    cell = lambda value: "-" if value is None else f"{value:.2f}"  # stages without the metric
    for r in state["stages"]:
        lines.append(f"| {r['stage']} | {r['env_steps']:,} | {r['train_wall_s']:.0f} | {r['episode_length']:.1f} | "
                     f"{cell(r['forward_speed'])} | {cell(r['success_rate'])} | "
                     f"{'passed' if r['gate_passed'] else 'not passed'} |")
    return "\n".join(lines) + "\n"


def write_state(out, state):
    runs.atomic_write(os.path.join(out, CURRICULUM_FILE), json.dumps(state, indent=1))
    runs.atomic_write(os.path.join(out, "curriculum.md"), curriculum_markdown(state))


def load_state(folder):
    """The saved state of the curriculum folder `folder`; ConfigError for a folder that is not a curriculum."""
    try:
        state = runs.read_json(os.path.join(folder, CURRICULUM_FILE))
        state["species"], state["stages"], state["overrides"], int(state["seed"]), len(state["sessions"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise ConfigError(f"{folder} is not a curriculum folder with a readable {CURRICULUM_FILE} "
                          f"({type(error).__name__})") from None
    return state


def read_state(folder, species=None):
    """The saved state of the curriculum folder `folder`, to resume; ConfigError for a folder that is not a
    curriculum, one of another species than `species` (when given), or one that has finished."""
    state = load_state(folder)
    saved_species, stages, overrides = state["species"], state["stages"], state["overrides"]
    if species is not None and species != saved_species:
        raise ConfigError(f"{folder} is a {saved_species} curriculum, not {species}")
    names, _ = stage_configs(saved_species, overrides)
    if len(stages) >= len(names):
        raise ConfigError(f"{folder} has finished all {len(names)} stages of its curriculum; nothing to resume")
    return state


def stage_progress(stage_out):
    """(update, gate decisions) where a stage's checkpoint stopped: (None, []) for a stage not begun."""
    checkpoint = os.path.join(stage_out, runs.CHECKPOINT)
    if not os.path.exists(checkpoint):
        return None, []
    update = int(runs.read_checkpoint(checkpoint)["update"])
    return update, decisions_until(os.path.join(stage_out, "gate.json"), update)


def run_curriculum(species, seed, out, overrides=None, use_wandb=False, resume=False):
    """Train `species` through its stages into `out`/<stage>/ (complete run folders, each with gate.json; eval.json
    records the gate's outcome), or continue the curriculum saved in `out` (`resume`). A stage ends when its gate
    passes or its step budget runs out; the next starts from its final params and normalizer. curriculum.json and
    curriculum.md record every stage's outcome as it ends. Returns the stage records, or None when stopped by
    Ctrl-C."""
    state = read_state(out, species) if resume else dict(species=species, seed=seed, overrides=overrides or {},
                                                          sessions=[], stages=[])
    names, configs = stage_configs(state["species"], state["overrides"])
    stage_envs, stress_envs = curriculum_envs(names, configs)
    machine, first, start = runs.machine(), len(state["stages"]), time.monotonic()
    progress = stage_progress(os.path.join(out, names[first])) if resume else (None, [])  # read before writing
    state["sessions"].append(dict(date=time.strftime("%Y-%m-%d %H:%M"), machine=machine, from_stage=names[first],
                                  from_update=progress[0], wall_s=0.0))
    write_state(out, state)
    for i in range(first, len(names)):
        name, config, env = names[i], configs[i], stage_envs[i]
        print(f"curriculum {state['species']}: stage {i + 1}/{len(names)}, {name}", flush=True)
        stage_out = os.path.join(out, name)
        update, decisions = progress if i == first else (None, [])
        warm = None
        if i and update is None:  # a fresh stage after the first: start from the last stage's final policy
            previous = os.path.join(out, names[i - 1], runs.CHECKPOINT)
            warm = restart_exploration(training.load_warm_start(previous, runs.read_checkpoint(previous), config, env),
                                       config["warm_start_log_std"])
        gate_after_chunk, outcome = make_gate(config["gate"], os.path.join(stage_out, "gate.json"), decisions,
                                              stress_envs[i])

        def after_chunk(progress):
            state["sessions"][-1]["wall_s"] = time.monotonic() - start  # current, should the session end mid-stage
            write_state(out, state)
            return gate_after_chunk(progress)

        summaries = training.run_group(env, [runs.RunSpec(name, config, state["seed"], stage_out, {})],
                                       resume=update is not None, use_wandb=use_wandb, warm_start=warm,
                                       after_chunk=after_chunk, eval_extras=lambda: dict(gate=outcome()))
        if summaries is None:
            return None
        state["stages"].append(stage_record(name, summaries[0], machine))
        state["sessions"][-1]["wall_s"] = time.monotonic() - start  # compiles and evaluations included
        write_state(out, state)
    return state["stages"]
