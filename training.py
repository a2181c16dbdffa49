"""Training runs: members of one vmapped program laid out over the devices, trained in chunks with progress lines,
checkpoints, exact resume, clean Ctrl-C and optional W&B logging, then evaluated. A lone run is a group of one.

The algorithm is ppo_mjx.py; this module drives its `make_trainer` and writes run folders (runs.py). Callers hook in
between chunks with `after_chunk` (curriculum.py evaluates its gates there).
"""

import contextlib
import functools
import json
import os
import platform
import signal
import time
from dataclasses import dataclass
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

import envs
import ppo_mjx
import runs
from configs import ConfigError, from_saved, get_config, with_overrides


# On AVX-512 CPUs (Cascade Lake, Zen 4) LLVM records the tuning flags +prefer-no-gather/+prefer-no-scatter among a
# program's machine features; XLA's loader then takes them for missing CPU features and prints an error line for
# every program read back from the compilation cache (jax-ml/jax#38445). Programs compiled for AVX2 carry no such
# flags.
XLA_CPU_FLAGS = "--xla_cpu_max_isa=AVX2" if platform.machine() in ("x86_64", "AMD64") else ""


def enable_compilation_cache():
    """Keep compiled XLA programs on disk across processes: an MJX compile takes 40-170 s on a CPU. Sets
    XLA_CPU_FLAGS unless XLA_FLAGS chooses an instruction set; call before JAX starts."""
    if "xla_cpu_max_isa" not in os.environ.get("XLA_FLAGS", ""):
        os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {XLA_CPU_FLAGS}".strip()
    jax.config.update("jax_compilation_cache_dir", os.path.expanduser("~/.cache/dino_mjx/jax"))


def check_trainable(config):
    """ConfigError for settings the trainer cannot run."""
    try:
        ppo_mjx.check_config(config)
    except ValueError as error:
        raise ConfigError(str(error)) from None


def policy_template(config, env):
    """Shapes of a policy ({params, normalizer}) for `env` with `config`'s network."""
    obs = jnp.zeros(env.observation_size)
    return {"params": jax.eval_shape(ppo_mjx.make_network(config, env.action_size).init, jax.random.key(0), obs),
            "normalizer": jax.eval_shape(ppo_mjx.normalizer_init, obs[None])}


def load_policy(path, checkpoint, config, env):
    """The policy ({params, normalizer}) stored in `checkpoint` (read from `path`), checked against the network
    `config` builds for `env`."""
    return runs.load_tree(path, checkpoint, "policy", policy_template(config, env), env.name)


@dataclass(frozen=True)
class Member:
    """One run of a group trained as one vmapped program: members share every structural setting and differ only in
    seed and traced hyperparameters. A lone run is a group of one."""

    name: str
    config: dict
    seed: int
    out: str  # its run folder
    setting: dict  # its swept values ({} outside a sweep)


def group_members(config, seed, num_seeds, grid, group_out):
    """A member per sweep setting of `grid` and seed (settings outer), each in its run folder under `group_out`."""
    members = []
    for setting in grid:
        member_config = with_overrides(config, setting)
        for member_seed in range(seed, seed + num_seeds):
            name = f"{runs.setting_label(setting)}_seed{member_seed}" if setting else f"seed{member_seed}"
            members.append(Member(name, member_config, member_seed, os.path.join(group_out, name), setting))
    return members


def resume_settings(folder):
    """(env name, members, group folder or None) of a run folder or a group folder, from their saved configs."""
    try:
        group = None
        if os.path.exists(os.path.join(folder, "group.json")):
            with open(os.path.join(folder, "group.json")) as f:
                group = json.load(f)
        described = group["members"] if group else [dict(name=os.path.basename(folder), seed=None, setting={})]
        outs = [os.path.join(folder, d["name"]) if group else folder for d in described]
        saved = []
        for out in outs:
            with open(os.path.join(out, "config.json")) as f:
                saved.append(from_saved(json.load(f)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ConfigError(f"{folder} is not a run, group or curriculum folder with readable config.json files "
                          f"({type(error).__name__})") from None
    members = [Member(d["name"], get_config(env_name, overrides), seed, out, d["setting"])
               for d, out, (env_name, seed, overrides) in zip(described, outs, saved)]
    return saved[0][0], members, folder if group else None


@dataclass(frozen=True)
class Layout:
    """Where the members' batched arrays live: a sharding per Runner leaf, one for the hyperparameters."""

    runner: ppo_mjx.Runner
    hparams: jax.sharding.Sharding
    replicated: jax.sharding.Sharding


def device_layout(runner_shape, num_members, num_envs, devices):
    """Spread the members over `devices`: whole members per device when their number divides evenly (independent
    programs, no communication), otherwise every member's env batch (the update then reduces across devices). After
    jax.distributed.initialize, jax.devices() spans every host and the same layouts apply."""
    mesh = jax.sharding.Mesh(np.array(devices), ("devices",))
    shard = lambda *spec: jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*spec))
    if num_members % len(devices) == 0:
        return Layout(jax.tree.map(lambda _: shard("devices"), runner_shape), shard("devices"), shard())
    if num_envs % len(devices):
        raise ConfigError(f"neither {num_members} runs nor num_envs = {num_envs} divide evenly over "
                          f"{len(devices)} devices")
    per_env = lambda tree: jax.tree.map(lambda _: shard(None, "devices"), tree)
    runner = jax.tree.map(lambda _: shard(), runner_shape).replace(
        env_state=per_env(runner_shape.env_state), episode_return=per_env(runner_shape.episode_return),
        episode_length=per_env(runner_shape.episode_length))
    return Layout(runner, shard(), shard())


def seeded_init(trainer):
    """(seeds [members], hparams [members]) -> fresh runners batched along a leading member axis."""
    return lambda seeds, hparams: jax.vmap(trainer.init)(jax.vmap(jax.random.key)(seeds), hparams)


def host_hparams(configs):
    """The members' traced hyperparameters stacked along a member axis, as host (numpy) arrays: every process of a
    multi-host run passes the same global value."""
    return jax.device_get(ppo_mjx.stack([ppo_mjx.hyperparameters(c) for c in configs]))


def member_layout(trainer, members, devices):
    """The Layout of `members` over `devices`."""
    shape = jax.eval_shape(seeded_init(trainer), np.asarray([m.seed for m in members], np.int32),
                           host_hparams([m.config for m in members]))
    return device_layout(shape, len(members), members[0].config["num_envs"], devices)


def init_members(trainer, members, hparams, layout):
    """Fresh runners, one per member, laid out on the devices."""
    seeds = np.asarray([m.seed for m in members], np.int32)
    return jax.jit(seeded_init(trainer), out_shardings=layout.runner)(seeds, hparams)


def compile_updates(trainer, layout, runner, hparams, num):
    """`run_updates` for `num` updates, vmapped over members and laid out by `layout`, compiled for these arrays."""
    program = jax.jit(jax.vmap(functools.partial(trainer.run_updates, num=num)),
                      in_shardings=(layout.runner, layout.hparams), out_shardings=(layout.runner, layout.replicated))
    return program.lower(runner, hparams).compile()


def replicator(layout):
    """A compiled copy that puts a full copy of a tree on every device, so that every process can read all of it
    (across hosts too)."""
    return jax.jit(lambda tree: tree, out_shardings=layout.replicated)


def chunk_length(num_updates, log_every):
    """The largest divisor of `num_updates` not above `log_every`: every chunk has one length, so one compile."""
    return max(n for n in range(1, min(log_every, num_updates) + 1) if num_updates % n == 0)


@contextlib.contextmanager
def stop_on_ctrl_c():
    """Yields a dict whose "requested" turns True at the first Ctrl-C: training then stops after the current chunk
    and writes a checkpoint. A second Ctrl-C interrupts at once (the last checkpoint stays intact)."""
    stop = {"requested": False}

    def handler(signum, frame):
        if stop["requested"]:
            raise KeyboardInterrupt
        stop["requested"] = True
        print("\nCtrl-C: stopping after this chunk and writing a checkpoint (Ctrl-C again to abort)", flush=True)

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield stop
    finally:
        signal.signal(signal.SIGINT, previous)


def chunk_rows(metrics, wall_s, steps_per_s):
    """Per-update metric arrays of one member's chunk -> one dict per update, plus wall time and throughput."""
    rows = []
    for i in range(len(metrics["env_steps"])):
        row = {"update": int(metrics["update"][i]), "env_steps": int(metrics["env_steps"][i])}
        row |= {k: float(v[i]) for k, v in metrics.items() if k not in row}
        rows.append(row | {"wall_s": wall_s, "steps_per_s": steps_per_s})
    return rows


def print_progress(latest, num_updates, batch):
    """One line from every member's latest row; returns, lengths and KL are means over members."""
    row, mean = latest[0], lambda key: np.mean([r[key] for r in latest])
    eta = (num_updates - row["update"]) * batch / row["steps_per_s"]
    print(f"update {row['update']}/{num_updates}  steps {row['env_steps']:,}  "
          f"{sum(r['steps_per_s'] for r in latest):,.0f} steps/s  ETA {eta:,.0f}s  return {mean('episode_return'):.2f}"
          f"  length {mean('episode_length'):.1f}  kl {mean('approx_kl'):.4f}"
          + (f"  (means of {len(latest)} runs)" if len(latest) > 1 else ""), flush=True)


def start_wandb(out, config):
    """A Weights & Biases run logging into `out`; resumes the same W&B run when the folder is resumed."""
    try:
        import wandb  # optional: imported only with --wandb
    except ImportError:
        raise ConfigError("--wandb needs the wandb package: pip install wandb") from None
    name = os.path.basename(os.path.abspath(out))
    run_id = "".join(c if c.isalnum() else "-" for c in name)[:64]
    return wandb.init(project="dino-mjx", name=name, id=run_id, resume="allow", dir=out, config=config)


def run_config(env, member):
    """What a run folder's config.json and checkpoint record: the member's config, env and seed."""
    return dict(member.config, env=env.name, seed=member.seed)


def read_checkpoints(env, members):
    """Each member's checkpoint, refused (CheckpointError) unless it is readable and saved with the member's config."""
    checkpoints = []
    for member in members:
        path = os.path.join(member.out, runs.CHECKPOINT)
        checkpoint = runs.read_checkpoint(path)
        if checkpoint["config"] != json.loads(json.dumps(run_config(env, member))):
            raise runs.CheckpointError(f"{runs.checkpoint_mismatch(path, checkpoint, env.name)}: its config differs "
                                       f"from {os.path.join(member.out, 'config.json')}")
        checkpoints.append(checkpoint)
    if len({len(c["rows"]) for c in checkpoints}) > 1:
        raise runs.CheckpointError(f"the runs' checkpoints stopped at different updates "
                                   f"({', '.join(str(len(c['rows'])) for c in checkpoints)}): resume them one by one")
    return checkpoints


def start_or_resume(trainer, env, members, hparams, layout, checkpoints, warm_start=None):
    """(batched runner, each member's metrics rows, training wall time): restored from the members' `checkpoints`, or
    a fresh start without them, whose params and normalizer are `warm_start`'s ({params, normalizer}) when given."""
    if not checkpoints:
        for member in members:
            runs.atomic_write(os.path.join(member.out, "config.json"), json.dumps(run_config(env, member), indent=1))
        runner = init_members(trainer, members, hparams, layout)
        if warm_start:
            copies = ppo_mjx.stack([warm_start] * len(members))
            runner = jax.device_put(runner.replace(train_state=runner.train_state.replace(params=copies["params"]),
                                                   normalizer=copies["normalizer"]), layout.runner)
        return runner, [[] for _ in members], 0.0
    runners = []
    for member, checkpoint in zip(members, checkpoints):
        template = jax.eval_shape(trainer.init, jax.random.key(member.seed), ppo_mjx.hyperparameters(member.config))
        path = os.path.join(member.out, runs.CHECKPOINT)
        if "runner" not in checkpoint:
            raise runs.CheckpointError(f"{path} holds the policy alone (--policy-only): it evaluates and warm-starts a "
                                       f"stage, but cannot resume")
        runners.append(runs.load_tree(path, checkpoint, "runner", template, env.name))
    return (jax.device_put(ppo_mjx.stack(runners), layout.runner), [c["rows"] for c in checkpoints],
            max(c["wall_s"] for c in checkpoints))


def make_evaluation(env, config, layout):
    """(runner, hparams, seeds) -> every member's evaluation summary: its policy (sampled actions) over `eval_episodes`
    fresh episodes (seeds apart from training's, the same at every call), scored with its own reward weights, all
    members in one vmapped program compiled once (callers between chunks and the run's end share it)."""

    def evaluate_member(params, normalizer, hp, seed):
        policy = ppo_mjx.evaluation_policy(config, env.action_size, params, normalizer)
        key = jax.random.key(seed + 1_000_000)
        return envs.evaluation_rollout(env, policy, key, config["eval_episodes"], hp["reward_weights"])[0]

    program = jax.jit(jax.vmap(evaluate_member), out_shardings=layout.replicated)

    def evaluation(runner, hparams, seeds):
        episodes = jax.device_get(program(runner.train_state.params, runner.normalizer, hparams,
                                          np.asarray(seeds, np.int32)))
        return [envs.evaluation_summary(jax.tree.map(lambda x: x[i], episodes)) | dict(
            episodes=config["eval_episodes"], physics="mjx", backend=jax.default_backend(),
            device=str(jax.devices()[0].device_kind)) for i in range(len(seeds))]

    return evaluation


@dataclass(frozen=True)
class Progress:
    """What `after_chunk` sees after every chunk."""

    update: int  # updates done
    env_steps: int
    wall_s: float  # training wall time so far
    evaluate: Callable  # () -> every member's evaluation summary of its current policy


def write_group(group_out, env_name, members):
    """group.json: the env and each member's name, seed and swept values (its config is in its own folder)."""
    runs.atomic_write(os.path.join(group_out, "group.json"), json.dumps(dict(
        env=env_name, members=[dict(name=m.name, seed=m.seed, setting=m.setting) for m in members]), indent=1))


def write_group_summary(group_out, env, members, summaries, rows):
    """summary.json (every member's evaluation and the settings ranked) and summary.md (the ranking as a table)."""
    described = [dict(name=m.name, seed=m.seed, setting=m.setting) for m in members]
    table = runs.rank_settings(described, summaries)
    final = [dict(d, eval=s, final_train_return=r[-1]["episode_return"]) for d, s, r in zip(described, summaries, rows)]
    runs.atomic_write(os.path.join(group_out, "summary.json"),
                      json.dumps(dict(env=env.name, members=final, settings=table), indent=1))
    markdown = runs.settings_markdown(table)
    runs.atomic_write(os.path.join(group_out, "summary.md"), f"# {env.name}: {len(members)} runs\n\n{markdown}")
    print(markdown, flush=True)


def run_members(env, members, group_out=None, resume=False, use_wandb=False, devices=None, warm_start=None,
                after_chunk=None):
    """Train `members` as one vmapped program spread over `devices` (default: all), each into its run folder, or
    continue them from their checkpoints; then evaluate each. A group (`group_out` set) also gets group.json,
    curves.png with every member's curve and the mean band, summary.json and summary.md. Each run folder holds
    config.json, checkpoint.msgpack, metrics.csv, curves.png and, at the end, eval.json. `warm_start` ({params,
    normalizer}) replaces the fresh params and normalizer. `after_chunk(Progress)` is called before training and
    after every chunk; when it returns True training ends there, as complete (a checkpoint, then the evaluation).
    Returns the members' evaluation summaries, or None when stopped by Ctrl-C."""
    config = members[0].config
    trainer = ppo_mjx.make_trainer(config, env)
    batch = config["num_envs"] * config["num_steps"]
    checkpoints = read_checkpoints(env, members) if resume else None
    eval_paths = [os.path.join(m.out, "eval.json") for m in members]
    if checkpoints and len(checkpoints[0]["rows"]) == trainer.num_updates and all(map(os.path.exists, eval_paths)):
        print(f"{group_out or members[0].out} is already trained and evaluated", flush=True)
        return [json.loads(open(path).read()) for path in eval_paths]
    seeds = [m.seed for m in members]
    devices = devices or jax.devices()
    layout = member_layout(trainer, members, devices)
    hparams = jax.device_put(host_hparams([m.config for m in members]), layout.hparams)
    replicated = replicator(layout)  # one compile, reused by every checkpoint
    evaluation = make_evaluation(env, config, layout)
    if group_out and not resume:
        write_group(group_out, env.name, members)
    runner, rows, wall_s = start_or_resume(trainer, env, members, hparams, layout, checkpoints, warm_start)
    chunk = chunk_length(trainer.num_updates, config["log_every"])
    print(f"env {env.name}: obs {env.observation_size}, actions {env.action_size}, {len(members)} run(s) of "
          f"{config['num_envs']} envs on {len(devices)} device(s), {trainer.num_updates} updates of "
          f"{batch} steps, from update {len(rows[0])}; output {group_out or members[0].out}", flush=True)
    logger = start_wandb(group_out or members[0].out, dict(run_config(env, members[0]), runs=len(members))) \
        if use_wandb else None

    def save():
        everything = replicated(runner)
        for i, member in enumerate(members):
            one = jax.tree.map(lambda x: x[i], everything)
            policy = {"params": one.train_state.params, "normalizer": one.normalizer}
            runs.save_checkpoint(os.path.join(member.out, runs.CHECKPOINT), env.name, run_config(env, member),
                                 one.update, one, policy, rows[i], wall_s)
            runs.atomic_write(os.path.join(member.out, "metrics.csv"), runs.metrics_csv(rows[i]))
            runs.atomic_write(os.path.join(member.out, "curves.png"),
                              runs.plot_curves(rows[i], f"{env.name} {member.name}"))
        if group_out:
            runs.atomic_write(os.path.join(group_out, "curves.png"), runs.plot_group_curves(
                rows, [runs.setting_label(m.setting) for m in members], f"{env.name}: {len(members)} runs"))

    progress = lambda: Progress(len(rows[0]), rows[0][-1]["env_steps"] if rows[0] else 0, wall_s,
                                lambda: evaluation(runner, hparams, seeds))
    ended_early = bool(after_chunk and after_chunk(progress()))  # a resumed run may have ended already
    saved_at = len(rows[0])
    if saved_at < trainer.num_updates and not ended_early:
        start = time.monotonic()
        print(f"compiling the training program ({chunk} updates per call): 1-3 min on a CPU the first time, seconds "
              f"once it is in the compilation cache", flush=True)
        run_chunk = compile_updates(trainer, layout, runner, hparams, chunk)
        print(f"compiled in {time.monotonic() - start:.0f}s", flush=True)
    with stop_on_ctrl_c() as stop:
        while len(rows[0]) < trainer.num_updates and not stop["requested"] and not ended_early:
            start = time.monotonic()
            runner, metrics = jax.block_until_ready(run_chunk(runner, hparams))
            elapsed = time.monotonic() - start
            wall_s += elapsed
            metrics = jax.device_get(metrics)
            for i, member in enumerate(members):
                new_rows = chunk_rows(jax.tree.map(lambda x: x[i], metrics), wall_s, chunk * batch / elapsed)
                rows[i] += new_rows
                for row in new_rows if logger else []:
                    prefix = f"{member.name}/" if group_out else ""
                    logger.log({prefix + k: v for k, v in row.items()}, step=row["env_steps"])
            print_progress([r[-1] for r in rows], trainer.num_updates, batch)
            update = len(rows[0])
            ended_early = bool(after_chunk and after_chunk(progress()))
            if (update - saved_at >= config["checkpoint_every"] or update == trainer.num_updates or stop["requested"]
                    or ended_early):
                save()
                saved_at = update
    if len(rows[0]) < trainer.num_updates and not ended_early:
        print(f"stopped at update {len(rows[0])}; checkpoint written", flush=True)
        return None
    summaries = [s | dict(train_wall_s=wall_s, env_steps=r[-1]["env_steps"])
                 for s, r in zip(evaluation(runner, hparams, seeds), rows)]
    for member, summary, path in zip(members, summaries, eval_paths):
        runs.atomic_write(path, json.dumps(summary, indent=1))
        print(f"evaluation of {member.name} (sampled actions): " + "  ".join(
            f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in summary.items()), flush=True)
        if logger:
            prefix = f"{member.name}/" if group_out else ""
            logger.log({f"{prefix}eval/{k}": v for k, v in summary.items() if isinstance(v, float)},
                       step=rows[0][-1]["env_steps"])
    if group_out:
        write_group_summary(group_out, env, members, summaries, rows)
    if logger:
        logger.finish()
    return summaries


def run(env, config, seed, out, resume=False, use_wandb=False):
    """Train one run into the folder `out` (or continue it), then evaluate: its evaluation summary, or None when
    stopped by Ctrl-C."""
    summaries = run_members(env, [Member(os.path.basename(out), config, seed, out, {})], None, resume, use_wandb)
    return summaries and summaries[0]
