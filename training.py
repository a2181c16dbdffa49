"""Training runs: the runs of a group trained as one vmapped program laid out over the devices, in chunks with
progress lines, checkpoints, exact resume, clean Ctrl-C and optional W&B logging, then evaluated. A lone run is a
group of one.

The algorithm is ppo_mjx.py; this module drives its `make_trainer` and writes run folders (runs.py). `run_group`, at
the end, calls the pieces above it in order: `prepare`, `start_or_resume`, `train_chunks` (which calls `save`),
`finish`. Callers hook in between chunks with `after_chunk` (curriculum.py evaluates its gates there) and add to
eval.json with `eval_extras` (the gate's outcome).
"""

import contextlib
import functools
import hashlib
import json
import os
import platform
import signal
import time
from dataclasses import dataclass
from typing import Callable, Optional

import jax
import jax.numpy as jnp
import mujoco
import numpy as np

import envs
import evaluation
import ppo_mjx
import program_cache
import runs
from configs import ConfigError


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
    program_cache.enable(os.path.expanduser("~/.cache/dino_mjx/programs"))


def program_key(env, config):
    """What, besides the code and the arguments' shapes, shapes the programs of runs of `config` on `env`: its
    stored programs (program_cache.py) are found under this key."""
    model = np.zeros(mujoco.mj_sizeModel(env.mj_model), np.uint8)
    mujoco.mj_saveModel(env.mj_model, None, model)
    return (env.name, hashlib.sha256(model).hexdigest(), json.dumps(config, sort_keys=True, default=str))


EVAL_ACTIONS = ("mean", "sampled")


def check_trainable(config):
    """ConfigError for settings the trainer cannot run."""
    try:
        ppo_mjx.check_config(config)
    except ValueError as error:
        raise ConfigError(str(error)) from None
    if config["eval_actions"] not in EVAL_ACTIONS:
        raise ConfigError(f"eval_actions '{config['eval_actions']}' is not one of: {', '.join(EVAL_ACTIONS)}")


def policy_template(config, env):
    """The shapes of the policy ({params, normalizer}) that `config` builds for `env`."""
    obs = jnp.zeros(env.observation_size)
    critic_obs = jnp.zeros(env.critic_observation_size) if env.critic_observation_size else None
    network = ppo_mjx.make_network(config, env.action_size)
    return {"params": jax.eval_shape(network.init, jax.random.key(0), obs, critic_obs),
            "normalizer": jax.eval_shape(ppo_mjx.normalizer_start, obs[None])}


def load_policy(path, checkpoint, config, env):
    """The policy ({params, normalizer}) stored in `checkpoint` (read from `path`), checked against the network
    `config` builds for `env`."""
    return runs.load_tree(path, checkpoint, "policy", policy_template(config, env), env.name)


def critic_layers(config):
    """The names of the critic's layers in ActorCritic's params: flax names Dense layers in the order they are made,
    the actor's hidden and mean layers first."""
    first = len(config["actor_hidden"]) + 1
    return [f"Dense_{first + i}" for i in range(len(config["critic_hidden"]) + 1)]


def load_warm_start(path, checkpoint, config, env):
    """The policy in `checkpoint` as the start of a new stage on `env`: whole where its critic reads an observation as
    wide as this stage's critic does; otherwise (a privileged critic in one stage and not the other, or observing
    other things in each) without the critic's layers, which then start as a fresh run's (`start_or_resume`)."""
    template, layers = policy_template(config, env), critic_layers(config)
    critic = tuple(f"['params']['params']['{name}']" for name in layers)  # checkpoint keys start so (runs.py)
    saved = checkpoint["policy"].get(critic[0] + "['kernel']")
    if saved is None or saved.shape == template["params"]["params"][layers[0]]["kernel"].shape:
        return runs.load_tree(path, checkpoint, "policy", template, env.name)
    actor = {k: v for k, v in checkpoint["policy"].items() if not k.startswith(critic)}
    for name in layers:
        del template["params"]["params"][name]
    return runs.load_tree(path, dict(checkpoint, policy=actor), "policy", template, env.name)


def warm_params(fresh, warm):
    """A fresh run's `params` with the warm start's layers in place of its own; the layers the warm start lacks (a
    critic that observes otherwise, `load_warm_start`) stay fresh."""
    return dict(fresh, params=dict(fresh["params"], **warm["params"]))


def run_hparams(config):
    """A run's `hparams`: the config's traced hyperparameters with its env params (ppo_mjx.hyperparameters)."""
    return ppo_mjx.hyperparameters(config, envs.env_params(config))


def host_hparams(configs):
    """The runs' `hparams` stacked along a run axis, as host (numpy) arrays: every process of a multi-host run passes
    the same global value."""
    return jax.device_get(ppo_mjx.stack([run_hparams(c) for c in configs]))


@dataclass(frozen=True)
class Layout:
    """Where the runs' batched arrays live: a sharding per Runner leaf, one for the hyperparameters."""

    runner: ppo_mjx.Runner
    hparams: jax.sharding.Sharding
    replicated: jax.sharding.Sharding


def device_layout(runner_shape, num_runs, num_envs, devices):
    """Spread the runs over `devices`: whole runs per device when their number divides evenly (independent
    programs, no communication), otherwise every run's env batch (the update then reduces across devices). After
    jax.distributed.initialize, jax.devices() spans every host and the same layouts apply."""
    mesh = jax.sharding.Mesh(np.array(devices), ("devices",))
    shard = lambda *spec: jax.sharding.NamedSharding(mesh, jax.sharding.PartitionSpec(*spec))
    if num_runs % len(devices) == 0:
        return Layout(jax.tree.map(lambda _: shard("devices"), runner_shape), shard("devices"), shard())
    if num_envs % len(devices):
        raise ConfigError(f"neither {num_runs} runs nor num_envs = {num_envs} divide evenly over "
                          f"{len(devices)} devices")
    per_env = lambda tree: jax.tree.map(lambda _: shard(None, "devices"), tree)
    runner = jax.tree.map(lambda _: shard(), runner_shape).replace(
        env_state=per_env(runner_shape.env_state), episode_return=per_env(runner_shape.episode_return),
        episode_length=per_env(runner_shape.episode_length), action_noise=per_env(runner_shape.action_noise))
    return Layout(runner, shard(), shard())


@functools.lru_cache(maxsize=8)
def seeded_init(trainer):
    """(seeds [runs], hparams [runs]) -> fresh runners batched along a leading run axis. One function per trainer, so
    that JAX traces it once for the layout's shapes (`group_layout`) and for the program (`init_runs`)."""
    return lambda seeds, hparams: jax.vmap(trainer.init)(jax.vmap(jax.random.key)(seeds), hparams)


def compile_updates(trainer, layout, runner, hparams, num, key):
    """`run_updates` for `num` updates, vmapped over runs and laid out by `layout`, compiled for these arrays (its
    traced program stored under `key`, see program_key)."""
    return program_cache.compile(jax.vmap(functools.partial(trainer.run_updates, num=num)), (runner, hparams),
                                 (*key, f"{num} updates"), in_shardings=(layout.runner, layout.hparams),
                                 out_shardings=(layout.runner, layout.replicated))


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
    """Per-update metric arrays of one run's chunk -> one dict per update, plus wall time and throughput."""
    rows = []
    for i in range(len(metrics["env_steps"])):
        row = {"update": int(metrics["update"][i]), "env_steps": int(metrics["env_steps"][i])}
        row |= {k: float(v[i]) for k, v in metrics.items() if k not in row}
        rows.append(row | {"wall_s": wall_s, "steps_per_s": steps_per_s})
    return rows


def print_progress(latest, num_updates, batch):
    """One line from every run's latest row; returns, lengths and KL are means over runs."""
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


def group_layout(trainer, specs, devices, key):
    """The Layout of the runs `specs` over `devices` (`key`: see program_key)."""
    shape = program_cache.shapes(seeded_init(trainer), (np.asarray([s.seed for s in specs], np.int32),
                                                        host_hparams([s.config for s in specs])), (*key, "init"))
    return device_layout(shape, len(specs), specs[0].config["num_envs"], devices)


def init_runs(trainer, specs, hparams, layout, key):
    """Fresh runners, one per run, laid out on the devices (`key`: see program_key)."""
    seeds = np.asarray([s.seed for s in specs], np.int32)
    return program_cache.compile(seeded_init(trainer), (seeds, hparams), (*key, "init"),
                                 out_shardings=layout.runner)(seeds, hparams)


def run_config(env, spec):
    """What a run folder's config.json and checkpoint record: the run's config, env and seed."""
    return dict(spec.config, env=env.name, seed=spec.seed)


def read_checkpoints(env, specs):
    """Each run's checkpoint, refused (CheckpointError) unless it is readable and saved with the run's config."""
    checkpoints = []
    for spec in specs:
        path = os.path.join(spec.out, runs.CHECKPOINT)
        checkpoint = runs.read_checkpoint(path)
        if checkpoint["config"] != json.loads(json.dumps(run_config(env, spec))):
            raise runs.CheckpointError(f"{runs.checkpoint_mismatch(path, checkpoint, env.name)}: its config differs "
                                       f"from {os.path.join(spec.out, 'config.json')}")
        checkpoints.append(checkpoint)
    if len({len(c["rows"]) for c in checkpoints}) > 1:
        raise runs.CheckpointError(f"the runs' checkpoints stopped at different updates "
                                   f"({', '.join(str(len(c['rows'])) for c in checkpoints)}): resume them one by one")
    return checkpoints


def evaluation_keys(seeds, draw):
    """Each run's evaluation key as raw key data: from its seed, apart from training's; `draw` 0 (the run's final
    evaluation) gives the same episodes at every call, any other `draw` (a gate's update) episodes of its own, so
    that a gate's evaluations in a row are independent samples and passing them does not select for one fixed set."""
    keys = [jax.random.key(seed + 1_000_000) for seed in seeds]
    return np.stack([jax.random.key_data(jax.random.fold_in(key, draw) if draw else key) for key in keys])


def make_evaluation(env, config, layout, hparams, seeds, key):
    """(runner, draw=0) -> every run's evaluation summary: its policy (`eval_actions`) over `eval_episodes` fresh
    episodes (`evaluation_keys`), stepped with its own env params from `hparams`, all runs in one vmapped program
    compiled at the first evaluation (callers between chunks and the run's end share it; `key`: see program_key)."""

    def evaluate_run(params, normalizer, run_hparams, key_data):
        policy = ppo_mjx.evaluation_policy(config, env.action_size, params, normalizer,
                                           mean=config["eval_actions"] == "mean")
        return evaluation.evaluation_rollout(env, policy, jax.random.wrap_key_data(key_data),
                                             config["eval_episodes"], run_hparams["env_params"])[0]

    compiled = {}

    def evaluate(runner, draw=0):
        args = (runner.train_state.params, runner.normalizer, hparams, evaluation_keys(seeds, draw))
        if not compiled:
            compiled["program"] = program_cache.compile(jax.vmap(evaluate_run), args, (*key, "evaluation"),
                                                        out_shardings=layout.replicated)
        episodes = jax.device_get(compiled["program"](*args))
        return [evaluation.evaluation_summary(env, jax.tree.map(lambda x: x[i], episodes)) | dict(
            episodes=config["eval_episodes"], actions=config["eval_actions"], physics="mjx",
            backend=jax.default_backend(), device=str(jax.devices()[0].device_kind)) for i in range(len(seeds))]

    return evaluate


@dataclass(frozen=True)
class Progress:
    """What `after_chunk` sees after every chunk."""

    update: int  # updates done
    env_steps: int
    wall_s: float  # training wall time so far
    evaluate: Callable  # (env=None) -> every run's evaluation summary of its current policy, on episodes drawn for
    # `update`, in the training's env or in `env` (of the same sizes, e.g. with harder pushes: a gate's stress test)


@dataclass(frozen=True)
class Setup:
    """What `run_group` builds once: the group, its program laid out on the devices, and the compiled helpers."""

    env: envs.Env
    specs: list  # runs.RunSpec of every run
    group_out: Optional[str]  # the group folder; None for a lone run
    trainer: ppo_mjx.Trainer
    layout: Layout
    hparams: dict  # every run's hparams, laid out
    evaluate: Callable  # (runner, draw=0) -> every run's evaluation summary (make_evaluation)
    evaluate_in: Callable  # (env) -> `evaluate` in another env of the same sizes, made at its first call
    replicate: Callable  # (runner) -> a full copy on every device, to write checkpoints
    chunk: int  # updates per compiled call
    batch: int  # env steps per update
    program_key: tuple  # what its stored programs are found under (program_key)


def prepare(env, specs, group_out, trainer, devices):
    """The Setup of training `specs` with `trainer` on `devices`."""
    config = specs[0].config
    key = program_key(env, config)
    layout = group_layout(trainer, specs, devices, key)
    hparams = jax.device_put(host_hparams([s.config for s in specs]), layout.hparams)
    seeds = [s.seed for s in specs]
    evaluate = make_evaluation(env, config, layout, hparams, seeds, key)
    evaluations = {}

    def evaluate_in(other):
        other_key = program_key(other, other.config)
        if other_key not in evaluations:
            evaluations[other_key] = make_evaluation(other, other.config, layout, hparams, seeds, other_key)
        return evaluations[other_key]

    return Setup(env, specs, group_out, trainer, layout, hparams, evaluate, evaluate_in, replicator(layout),
                 chunk_length(trainer.num_updates, config["log_every"]), config["num_envs"] * config["num_steps"], key)


def start_or_resume(setup, checkpoints, warm_start=None):
    """(batched runner, each run's metrics rows, training wall time): restored from the runs' `checkpoints`, or a
    fresh start without them, whose params and normalizer are `warm_start`'s ({params, normalizer}) when given."""
    env, specs, layout = setup.env, setup.specs, setup.layout
    if not checkpoints:
        for spec in specs:
            runs.atomic_write(os.path.join(spec.out, "config.json"), json.dumps(run_config(env, spec), indent=1))
        runner = init_runs(setup.trainer, specs, setup.hparams, layout, setup.program_key)
        if warm_start:
            copies = ppo_mjx.stack([warm_start] * len(specs))
            params = warm_params(runner.train_state.params, copies["params"])
            runner = jax.device_put(runner.replace(train_state=runner.train_state.replace(params=params),
                                                   normalizer=copies["normalizer"]), layout.runner)
        return runner, [[] for _ in specs], 0.0
    runners = []
    for spec, checkpoint in zip(specs, checkpoints):
        template = program_cache.shapes(setup.trainer.init, (jax.random.key(spec.seed), run_hparams(spec.config)),
                                        (*setup.program_key, "init of one run"))
        path = os.path.join(spec.out, runs.CHECKPOINT)
        if "runner" not in checkpoint:
            raise runs.CheckpointError(f"{path} holds the policy alone (--policy-only): it evaluates and warm-starts a "
                                       f"stage, but cannot resume")
        runners.append(runs.load_tree(path, checkpoint, "runner", template, env.name))
    return (jax.device_put(ppo_mjx.stack(runners), layout.runner), [c["rows"] for c in checkpoints],
            max(c["wall_s"] for c in checkpoints))


def save(setup, runner, rows, wall_s):
    """Every run's checkpoint (train state, policy, rows), metrics.csv and curves.png; the group's curves.png."""
    env, group_out = setup.env, setup.group_out
    replicated_runner = setup.replicate(runner)
    for i, spec in enumerate(setup.specs):
        run_runner = jax.tree.map(lambda x: x[i], replicated_runner)
        policy = {"params": run_runner.train_state.params, "normalizer": run_runner.normalizer}
        runs.save_checkpoint(os.path.join(spec.out, runs.CHECKPOINT), env.name, run_config(env, spec),
                             run_runner.update, run_runner, policy, rows[i], wall_s)
        runs.atomic_write(os.path.join(spec.out, "metrics.csv"), runs.metrics_csv(rows[i]))
        runs.atomic_write(os.path.join(spec.out, "curves.png"), runs.plot_curves(rows[i], f"{env.name} {spec.name}"))
    if group_out:
        runs.atomic_write(os.path.join(group_out, "curves.png"), runs.plot_group_curves(
            rows, [runs.setting_label(s.setting) for s in setup.specs], f"{env.name}: {len(setup.specs)} runs"))


def log_rows(logger, setup, rows, step=None):
    """Send `rows` (a list per run) to W&B at their env steps (or `step`), each run's keys prefixed by its name in a
    group; numbers only."""
    for spec, run_rows in zip(setup.specs, rows):
        prefix = f"{spec.name}/" if setup.group_out else ""
        for row in run_rows:
            logger.log({prefix + k: v for k, v in row.items() if isinstance(v, (int, float))},
                       step=row["env_steps"] if step is None else step)


def train_chunks(setup, runner, rows, wall_s, after_chunk=None, logger=None):
    """Train chunk by chunk until the last update, a Ctrl-C or `after_chunk` (called before training too) says stop,
    writing checkpoints every `checkpoint_every` updates and when training stops. `rows` grow in place. Returns
    (runner, training wall time, whether training is complete: all updates, or ended by `after_chunk`)."""
    trainer, config = setup.trainer, setup.specs[0].config

    def progress():
        update = len(rows[0])
        return Progress(update, rows[0][-1]["env_steps"] if rows[0] else 0, wall_s,
                        lambda env=None: (setup.evaluate if env is None else setup.evaluate_in(env))(runner, update))

    ended_early = bool(after_chunk and after_chunk(progress()))  # a resumed run may have ended already
    saved_at = len(rows[0])
    if saved_at < trainer.num_updates and not ended_early:
        start = time.monotonic()
        print(f"compiling the training program ({setup.chunk} updates per call): 1-3 min on a CPU the first time, "
              f"seconds once it is in the compilation cache", flush=True)
        run_chunk = compile_updates(trainer, setup.layout, runner, setup.hparams, setup.chunk,
                                    setup.program_key)
        print(f"compiled in {time.monotonic() - start:.0f}s", flush=True)
    with stop_on_ctrl_c() as stop:
        while len(rows[0]) < trainer.num_updates and not stop["requested"] and not ended_early:
            start = time.monotonic()
            runner, metrics = jax.block_until_ready(run_chunk(runner, setup.hparams))
            elapsed = time.monotonic() - start
            wall_s += elapsed
            metrics = jax.device_get(metrics)
            new_rows = [chunk_rows(jax.tree.map(lambda x: x[i], metrics), wall_s, setup.chunk * setup.batch / elapsed)
                        for i in range(len(setup.specs))]
            for run_rows, new in zip(rows, new_rows):
                run_rows += new
            if logger:
                log_rows(logger, setup, new_rows)
            print_progress([r[-1] for r in rows], trainer.num_updates, setup.batch)
            update = len(rows[0])
            ended_early = bool(after_chunk and after_chunk(progress()))
            if (update - saved_at >= config["checkpoint_every"] or update == trainer.num_updates or stop["requested"]
                    or ended_early):
                save(setup, runner, rows, wall_s)
                saved_at = update
    return runner, wall_s, len(rows[0]) == trainer.num_updates or ended_early


def finish(setup, runner, rows, wall_s, logger=None, eval_extras=None):
    """Evaluate every run and write its eval.json once (with `eval_extras()` added); a group also gets summary.json
    and summary.md. Returns the evaluation summaries."""
    extras = eval_extras() if eval_extras else {}
    summaries = [s | dict(train_wall_s=wall_s, env_steps=r[-1]["env_steps"]) | extras
                 for s, r in zip(setup.evaluate(runner), rows)]
    for spec, summary in zip(setup.specs, summaries):
        runs.atomic_write(os.path.join(spec.out, "eval.json"), json.dumps(summary, indent=1))
        print(f"evaluation of {spec.name} ({summary['actions']} actions): " + "  ".join(
            f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in summary.items()), flush=True)
    if logger:
        log_rows(logger, setup, [[{f"eval/{k}": v for k, v in s.items()}] for s in summaries], rows[0][-1]["env_steps"])
    if setup.group_out:
        runs.write_group_summary(setup.group_out, setup.env.name, setup.specs, summaries, rows)
    return summaries


def run_group(env, specs, group_out=None, resume=False, use_wandb=False, devices=None, warm_start=None,
              after_chunk=None, eval_extras=None):
    """Train the runs `specs` (runs.RunSpec) as one vmapped program spread over `devices` (default: all), each into
    its run folder, or continue them from their checkpoints; then evaluate each. A group (`group_out` set) also gets
    group.json, curves.png with every run's curve and the mean band, summary.json and summary.md. Each run folder
    holds config.json, checkpoint.msgpack, metrics.csv, curves.png and, at the end, eval.json. `warm_start` ({params,
    normalizer}) replaces the fresh params and normalizer. `after_chunk(Progress)` is called before training and
    after every chunk; when it returns True training ends there, as complete (a checkpoint, then the evaluation).
    `eval_extras()` returns entries added to every eval.json. Returns the runs' evaluation summaries, or None when
    stopped by Ctrl-C."""
    trainer = ppo_mjx.make_trainer(specs[0].config, env)
    checkpoints = read_checkpoints(env, specs) if resume else None
    eval_paths = [os.path.join(s.out, "eval.json") for s in specs]
    if checkpoints and len(checkpoints[0]["rows"]) == trainer.num_updates and all(map(os.path.exists, eval_paths)):
        print(f"{group_out or specs[0].out} is already trained and evaluated", flush=True)
        return [runs.read_json(path) for path in eval_paths]
    devices = devices or jax.devices()
    setup = prepare(env, specs, group_out, trainer, devices)
    if group_out and not resume:
        runs.write_group(group_out, env.name, specs)
    runner, rows, wall_s = start_or_resume(setup, checkpoints, warm_start)
    config = specs[0].config
    print(f"env {env.name}: obs {env.observation_size}, actions {env.action_size}, {len(specs)} run(s) of "
          f"{config['num_envs']} envs on {len(devices)} device(s), {setup.trainer.num_updates} updates of "
          f"{setup.batch} steps, from update {len(rows[0])}; output {group_out or specs[0].out}", flush=True)
    logger = start_wandb(group_out or specs[0].out, dict(run_config(env, specs[0]), runs=len(specs))) \
        if use_wandb else None
    runner, wall_s, complete = train_chunks(setup, runner, rows, wall_s, after_chunk, logger)
    if not complete:
        print(f"stopped at update {len(rows[0])}; checkpoint written", flush=True)
        return None
    summaries = finish(setup, runner, rows, wall_s, logger, eval_extras)
    if logger:
        logger.finish()
    return summaries


def run(env, config, seed, out, resume=False, use_wandb=False):
    """Train one run into the folder `out` (or continue it), then evaluate: its evaluation summary, or None when
    stopped by Ctrl-C."""
    summaries = run_group(env, [runs.RunSpec(os.path.basename(out), config, seed, out, {})], None, resume, use_wandb)
    return summaries and summaries[0]
