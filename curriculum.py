"""A species' curriculum: its stages trained in order, each until its gate passes or its step budget runs out, each
warm-starting from the last. Gates are evaluated between training chunks through training.run_members' `after_chunk`.

Gates (`gate` in a stage config, see configs/stages.py): every `eval_every` updates the deterministic policy is
evaluated; an evaluation passes when every metric in `min` is at least its threshold; the gate passes when
`consecutive` evaluations in a row have passed.
"""

import json
import os

import jax.numpy as jnp

import envs
import runs
import training
from configs import CONFIGS, ConfigError, curriculum_stages, flatten, get_config


def stage_configs(species, overrides):
    """(stage env names, their configs) for `species`; each override applies to every stage that has its key."""
    names = curriculum_stages(species)
    keys = [dict(flatten(CONFIGS[name])) for name in names]
    for key in overrides:
        if not any(key in k for k in keys):
            raise ConfigError(f"no stage of '{species}' has config key '{key}'")
    return names, [get_config(name, {k: v for k, v in overrides.items() if k in known})
                   for name, known in zip(names, keys)]


def check_gate(gate, env):
    """ConfigError unless every metric `gate` names is one that `env`'s evaluation reports."""
    known = envs.evaluation_metric_names(env)
    unknown = sorted(set(gate["min"]) - set(known))
    if unknown:
        raise ConfigError(f"env '{env.name}': the gate names {', '.join(unknown)}, which its evaluation does not "
                          f"report; metrics: {', '.join(known)}")
    if gate["consecutive"] < 1 or gate["eval_every"] < 1:
        raise ConfigError(f"env '{env.name}': gate consecutive and eval_every must be at least 1")


def curriculum_envs(names, configs):
    """Each stage's env, checked before anything trains: trainable config, a valid model (envs.env_from_config),
    the same observation and action sizes in every stage (a policy must carry over), and a gate naming metrics its
    evaluation reports."""
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
    return stage_envs


def gate_decision(gate, summary, previous):
    """One gate evaluation: `summary` passes when every metric of `gate["min"]` is at least its threshold; the gate
    passes when `gate["consecutive"]` evaluations in a row have passed, counting the `previous` decisions."""
    failing = {k: summary[k] for k, threshold in gate["min"].items() if not summary[k] >= threshold}
    streak = 0 if failing else (previous[-1]["consecutive"] if previous else 0) + 1
    return dict(metrics={k: summary[k] for k in gate["min"]}, passed=not failing, consecutive=streak,
                gate_passed=streak >= gate["consecutive"])


def make_gate(gate, path):
    """(after_chunk callback for training.run_members, outcome()): every `eval_every` updates the callback evaluates
    the policy, appends the decision to gate.json at `path` and ends training once the gate has passed; outcome()
    summarizes the decisions for eval.json."""
    decisions = []

    def after_chunk(progress):
        if progress.update - (decisions[-1]["update"] if decisions else 0) < gate["eval_every"]:
            return False
        decision = gate_decision(gate, progress.evaluate()[0], decisions)
        decisions.append(dict(update=progress.update, env_steps=progress.env_steps, wall_s=progress.wall_s)
                         | decision)
        runs.atomic_write(path, json.dumps(dict(gate=gate, decisions=decisions), indent=1))
        print(f"gate: {decision['metrics']} -> {'pass' if decision['passed'] else 'fail'} "
              f"({decision['consecutive']}/{gate['consecutive']} in a row)", flush=True)
        return decision["gate_passed"]

    def outcome():
        return dict(passed=bool(decisions and decisions[-1]["gate_passed"]), evaluations=len(decisions),
                    min=gate["min"], consecutive=gate["consecutive"])

    return after_chunk, outcome


def warm_start_policy(path, config, env):
    """The previous stage's final policy, for this stage's network, its log std restarted at `warm_start_log_std`
    so that the policy explores the new task (the normalizer's statistics carry over as they are)."""
    policy = training.load_policy(path, runs.read_checkpoint(path), config, env)
    log_std = jnp.full(env.action_size, config["warm_start_log_std"], jnp.float32)
    return dict(policy, params={"params": dict(policy["params"]["params"], log_std=log_std)})


def stage_record(name, summary):
    """A stage's line in curriculum.json: the gate's outcome and the final evaluation's main metrics."""
    return dict(stage=name, gate_passed=summary["gate"]["passed"], env_steps=summary["env_steps"],
                train_wall_s=summary["train_wall_s"], episode_length=summary["episode_length"],
                forward_speed=summary.get("forward_speed_mean"), success_rate=summary.get("success_rate"),
                gate=summary["gate"])


def curriculum_markdown(species, records, machine):
    """The stages as a Markdown table, with where they ran."""
    lines = [f"# {species} curriculum", "", f"{machine['backend']} ({machine['device']}; {machine['cpu']}), jax "
             f"{machine['versions']['jax']}, mujoco {machine['versions']['mujoco']}", "",
             "| stage | steps | wall time (s) | final episode length | forward speed (m/s) | success rate | gate |",
             "|---|---:|---:|---:|---:|---:|---|"]
    cell = lambda value: "-" if value is None else f"{value:.2f}"  # stages without the metric
    for r in records:
        lines.append(f"| {r['stage']} | {r['env_steps']:,} | {r['train_wall_s']:.0f} | {r['episode_length']:.1f} | "
                     f"{cell(r['forward_speed'])} | {cell(r['success_rate'])} | "
                     f"{'passed' if r['gate_passed'] else 'not passed'} |")
    return "\n".join(lines) + "\n"


def run_curriculum(species, seed, out, overrides=None, use_wandb=False):
    """Train `species` through its stages into `out`/<stage>/ (complete run folders, each with gate.json; eval.json
    records the gate's outcome). A stage ends when its gate passes or its step budget runs out; the next starts from
    its final params and normalizer. curriculum.json and curriculum.md record every stage's outcome as it ends.
    Returns the stage records, or None when stopped by Ctrl-C."""
    names, configs = stage_configs(species, overrides or {})
    stage_envs = curriculum_envs(names, configs)
    records, machine = [], runs.machine()
    for i, (name, config, env) in enumerate(zip(names, configs, stage_envs)):
        print(f"curriculum {species}: stage {i + 1}/{len(names)}, {name}", flush=True)
        stage_out = os.path.join(out, name)
        warm = warm_start_policy(os.path.join(out, names[i - 1], runs.CHECKPOINT), config, env) if i else None
        after_chunk, outcome = make_gate(config["gate"], os.path.join(stage_out, "gate.json"))
        summaries = training.run_members(env, [training.Member(name, config, seed, stage_out, {})],
                                         use_wandb=use_wandb, warm_start=warm, after_chunk=after_chunk)
        if summaries is None:
            return None
        summary = dict(summaries[0], gate=outcome())
        runs.atomic_write(os.path.join(stage_out, "eval.json"), json.dumps(summary, indent=1))
        records.append(stage_record(name, summary))
        runs.atomic_write(os.path.join(out, "curriculum.json"),
                          json.dumps(dict(species=species, seed=seed, machine=machine, stages=records), indent=1))
        runs.atomic_write(os.path.join(out, "curriculum.md"), curriculum_markdown(species, records, machine))
    return records
