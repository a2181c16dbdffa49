"""PPO on a vmapped MJX environment, PureJAXRL-style: `make_train(config, env)` returns ONE jittable `train(rng)`.

    python ppo_mjx.py --env trex_stage1 --seed 0
    python ppo_mjx.py --env trex_stage1 --num-envs 128 --total-timesteps 1000000 --set lr=1e-4
    python ppo_mjx.py --resume results/runs/trex_stage1_seed0_20261122-101500

Differences from PureJAXRL's ppo_continuous_action.py: time-limit truncation bootstraps from the value of the
observation before the auto-reset (termination never bootstraps); observation-normalizer statistics live in the train
state; metrics are reduced to per-update scalars inside the scan; the CLI runs the update scan in chunks with
checkpoints between them (exact resume, clean Ctrl-C); a deterministic evaluation runs at the end.
"""

import argparse
import ast
import contextlib
import functools
import json
import math
import os
import signal
import sys
import time
from dataclasses import dataclass
from typing import Callable

import distrax
import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.training.train_state import TrainState

import envs
import runs
from configs import CONFIGS, ConfigError, from_saved, get_config

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def enable_compilation_cache():
    """Keep compiled XLA programs on disk across processes: an MJX compile takes 20-100 s on a CPU."""
    jax.config.update("jax_compilation_cache_dir", os.path.expanduser("~/.cache/dino_mjx/jax"))


class ActorCritic(nn.Module):
    """Separate tanh MLPs. The policy is a Gaussian with a state-independent log-std: its log-prob and entropy are
    exact and cheap, and the env clips actions to [-1, 1] while the log-prob stays on the unclipped sample (a
    tanh-squashed policy needs a log-det correction and has no closed-form entropy)."""

    action_size: int
    actor_hidden: tuple
    critic_hidden: tuple
    init_log_std: float

    @nn.compact
    def __call__(self, obs):
        x = obs
        for width in self.actor_hidden:
            x = nn.tanh(nn.Dense(width, kernel_init=nn.initializers.orthogonal(math.sqrt(2)))(x))
        mean = nn.Dense(self.action_size, kernel_init=nn.initializers.orthogonal(0.01))(x)
        log_std = self.param("log_std", nn.initializers.constant(self.init_log_std), (self.action_size,))
        v = obs
        for width in self.critic_hidden:
            v = nn.tanh(nn.Dense(width, kernel_init=nn.initializers.orthogonal(math.sqrt(2)))(v))
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(v)
        return distrax.MultivariateNormalDiag(mean, jnp.exp(log_std)), value[..., 0]


@struct.dataclass
class Normalizer:
    """Running observation mean/variance (merged batch by batch, Chan et al.)."""

    mean: jax.Array
    var: jax.Array
    count: jax.Array


def normalizer_init(obs_batch):
    return Normalizer(obs_batch.mean(0), obs_batch.var(0), jnp.array(obs_batch.shape[0], jnp.float32))


def normalizer_update(norm, obs_batch):
    batch_mean, batch_var, batch_count = obs_batch.mean(0), obs_batch.var(0), obs_batch.shape[0]
    total = norm.count + batch_count
    delta = batch_mean - norm.mean
    mean = norm.mean + delta * batch_count / total
    m2 = norm.var * norm.count + batch_var * batch_count + jnp.square(delta) * norm.count * batch_count / total
    return Normalizer(mean, m2 / total, total)


def normalize(norm, obs):
    return jnp.clip((obs - norm.mean) / jnp.sqrt(norm.var + 1e-8), -10.0, 10.0)


def gae_advantages(rewards, values, next_values, terminated, truncated, gamma, gae_lambda):
    """GAE over a [time, env] rollout. `next_values[t]` is V(obs after step t, before any reset): it bootstraps
    through truncation and continuing steps, and is zeroed on termination. The recursion stops at every episode end."""
    deltas = rewards + gamma * next_values * (1.0 - terminated) - values
    done = jnp.logical_or(terminated, truncated).astype(jnp.float32)

    def _gae_step(gae, delta_done):
        delta, done_t = delta_done
        gae = delta + gamma * gae_lambda * (1.0 - done_t) * gae
        return gae, gae

    _, advantages = jax.lax.scan(_gae_step, jnp.zeros_like(values[0]), (deltas, done), reverse=True)
    return advantages, advantages + values


@struct.dataclass
class Transition:
    obs: jax.Array  # raw observation the action was taken in
    action: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    final_obs: jax.Array  # raw observation after the step, before any auto-reset
    finished_return: jax.Array  # return of the episode that ended at this step (0 where none ended)
    finished_length: jax.Array
    info: dict


@struct.dataclass
class Runner:
    train_state: TrainState
    normalizer: Normalizer
    env_state: envs.EnvState
    episode_return: jax.Array  # running return of each env's current episode
    episode_length: jax.Array
    rng: jax.Array
    update: jax.Array  # updates done so far


def check_config(config):
    """Raise ConfigError for settings the trainer cannot run."""
    batch = config["num_envs"] * config["num_steps"]
    if batch % config["num_minibatches"]:
        raise ConfigError(f"num_envs * num_steps = {batch} is not divisible by num_minibatches = "
                          f"{config['num_minibatches']}")
    if config["total_timesteps"] < batch:
        raise ConfigError(f"total_timesteps = {config['total_timesteps']} is less than one batch "
                          f"(num_envs * num_steps = {batch})")


def make_network(config, env):
    return ActorCritic(env.action_size, tuple(config["actor_hidden"]), tuple(config["critic_hidden"]),
                       config["init_log_std"])


@dataclass(frozen=True)
class Trainer:
    """The PPO program in two pure pieces: `init(rng) -> Runner` and `run_updates(runner, n) -> (runner, metrics)`
    for a static number of updates. `make_train` composes them into one `train(rng)`; the CLI runs `run_updates` in
    chunks so it can print progress, checkpoint and stop cleanly between them."""

    init: Callable
    run_updates: Callable
    num_updates: int


def make_trainer(config, env):
    """PPO for `env` as a Trainer; every hyperparameter comes from `config` (see configs/ppo.py)."""
    check_config(config)
    num_envs, num_steps = config["num_envs"], config["num_steps"]
    batch_size = num_envs * num_steps
    minibatch_size = batch_size // config["num_minibatches"]
    num_updates = config["total_timesteps"] // batch_size
    network = make_network(config, env)
    lr = optax.linear_schedule(config["lr"], 0.0, num_updates * config["update_epochs"] * config["num_minibatches"])
    tx = optax.chain(optax.clip_by_global_norm(config["max_grad_norm"]),
                     optax.adam(lr if config["anneal_lr"] else config["lr"], eps=1e-5))

    def init(rng):
        rng, init_key, reset_key = jax.random.split(rng, 3)
        env_state = jax.vmap(env.reset)(jax.random.split(reset_key, num_envs))
        params = network.init(init_key, jnp.zeros(env.observation_size))
        train_state = TrainState.create(apply_fn=network.apply, params=params, tx=tx)
        normalizer = normalizer_init(env_state.obs)
        if not config["normalize_obs"]:
            normalizer = Normalizer(jnp.zeros(env.observation_size), jnp.ones(env.observation_size), jnp.zeros(()))
        zeros = jnp.zeros(num_envs)
        return Runner(train_state, normalizer, env_state, zeros, zeros, rng, jnp.zeros((), jnp.int32))

    def _update_step(runner, _):
        def _env_step(runner, _):
            rng, action_key = jax.random.split(runner.rng)
            pi, value = network.apply(runner.train_state.params, normalize(runner.normalizer, runner.env_state.obs))
            action = pi.sample(seed=action_key)
            env_state = jax.vmap(env.step)(runner.env_state, action)
            done = env_state.terminated | env_state.truncated
            episode_return = runner.episode_return + env_state.reward
            episode_length = runner.episode_length + 1
            transition = Transition(
                runner.env_state.obs, action, pi.log_prob(action), value, env_state.reward,
                env_state.terminated, env_state.truncated, env_state.final_obs,
                jnp.where(done, episode_return, 0.0), jnp.where(done, episode_length, 0.0), env_state.info)
            runner = runner.replace(env_state=env_state, episode_return=jnp.where(done, 0.0, episode_return),
                                    episode_length=jnp.where(done, 0.0, episode_length), rng=rng)
            return runner, transition

        runner, traj = jax.lax.scan(_env_step, runner, None, num_steps)

        def _calculate_gae(traj):
            _, next_values = network.apply(runner.train_state.params, normalize(runner.normalizer, traj.final_obs))
            return gae_advantages(traj.reward, traj.value, next_values, traj.terminated, traj.truncated,
                                  config["gamma"], config["gae_lambda"])

        advantages, targets = _calculate_gae(traj)
        batch = (normalize(runner.normalizer, traj.obs), traj.action, traj.log_prob, traj.value, advantages,
                 targets)
        batch = jax.tree.map(lambda x: x.reshape((batch_size,) + x.shape[2:]), batch)

        def _update_epoch(carry, _):
            train_state, rng = carry
            rng, perm_key = jax.random.split(rng)
            permutation = jax.random.permutation(perm_key, batch_size)
            minibatches = jax.tree.map(
                lambda x: x[permutation].reshape((config["num_minibatches"], minibatch_size) + x.shape[1:]), batch)

            def _update_minibatch(train_state, minibatch):
                def _loss_fn(params, minibatch):
                    obs, action, old_log_prob, old_value, advantage, target = minibatch
                    pi, value = network.apply(params, obs)
                    value_clipped = old_value + jnp.clip(value - old_value, -config["clip_eps"], config["clip_eps"])
                    value_loss = 0.5 * jnp.maximum(jnp.square(value - target),
                                                   jnp.square(value_clipped - target)).mean()
                    log_ratio = pi.log_prob(action) - old_log_prob
                    ratio = jnp.exp(log_ratio)
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                    actor_loss = -jnp.minimum(
                        ratio * advantage,
                        jnp.clip(ratio, 1.0 - config["clip_eps"], 1.0 + config["clip_eps"]) * advantage).mean()
                    entropy = pi.entropy().mean()
                    total = actor_loss + config["vf_coef"] * value_loss - config["ent_coef"] * entropy
                    return total, dict(
                        actor_loss=actor_loss, value_loss=value_loss, entropy=entropy,
                        approx_kl=((ratio - 1.0) - log_ratio).mean(),
                        clip_fraction=(jnp.abs(ratio - 1.0) > config["clip_eps"]).mean())

                grads, losses = jax.grad(_loss_fn, has_aux=True)(train_state.params, minibatch)
                losses["grad_norm"] = optax.tree.norm(grads)
                return train_state.apply_gradients(grads=grads), losses

            train_state, losses = jax.lax.scan(_update_minibatch, train_state, minibatches)
            return (train_state, rng), losses

        (train_state, rng), losses = jax.lax.scan(
            _update_epoch, (runner.train_state, runner.rng), None, config["update_epochs"])
        # Statistics change only after the update, so the update sees the same normalization as the rollout.
        normalizer = runner.normalizer
        if config["normalize_obs"]:
            normalizer = normalizer_update(normalizer, traj.obs.reshape(batch_size, -1))
        runner = runner.replace(train_state=train_state, normalizer=normalizer, rng=rng)
        metrics = update_metrics(traj, losses, targets, runner.update, batch_size)
        return runner.replace(update=runner.update + 1), metrics

    def run_updates(runner, num):
        return jax.lax.scan(_update_step, runner, None, num)

    return Trainer(init, run_updates, num_updates)


def make_train(config, env):
    """`train(rng)` runs the whole PPO training as one jittable function: {"runner": final state, "metrics": per-update
    scalars}."""
    trainer = make_trainer(config, env)

    def train(rng):
        runner, metrics = trainer.run_updates(trainer.init(rng), trainer.num_updates)
        return {"runner": runner, "metrics": metrics}

    return train


def update_metrics(traj, losses, targets, update, batch_size):
    """Per-update scalars: memory stays constant in steps x envs."""
    done = traj.terminated | traj.truncated
    episodes = done.sum()
    per_episode = lambda x: jnp.where(episodes > 0, x.sum() / jnp.maximum(episodes, 1), jnp.nan)
    residual = targets - traj.value
    metrics = dict(
        update=update + 1,  # updates done, counting this one
        env_steps=(update + 1) * batch_size,
        episode_return=per_episode(traj.finished_return),
        episode_length=per_episode(traj.finished_length),
        episodes=episodes,
        terminations=traj.terminated.sum(),
        truncations=traj.truncated.sum(),
        reward=traj.reward.mean(),
        explained_variance=1.0 - residual.var() / (targets.var() + 1e-8),
    )
    metrics |= {k: v.mean() for k, v in traj.info.items() if k != "nan_reset"}
    metrics["nan_resets"] = traj.info["nan_reset"].sum()
    metrics |= {k: v.mean() for k, v in losses.items()}
    return metrics


def deterministic_policy(config, env, params, normalizer):
    """obs -> the Gaussian's mean action."""
    network = make_network(config, env)
    return lambda obs: network.apply(params, normalize(normalizer, obs))[0].mode()


def evaluate(env, policy, key, num_episodes):
    """`policy` (obs -> action) for one episode in each of `num_episodes` envs. Returns (episodes, qpos): per episode
    its return, length, whether it reached the time limit, each task metric at its last step and its mean over the
    episode (`<name>_mean`); and qpos [steps, episodes, nq] for rendering (valid for steps below each length)."""
    measures = [k for k in jax.eval_shape(env.reset, key).info if not k.startswith("reward/") and k != "nan_reset"]

    def _eval_step(carry, _):
        state, ended, result = carry
        qpos = state.data.qpos
        state = jax.vmap(env.step)(state, policy(state.obs))
        live = ~ended
        ends_now = live & (state.terminated | state.truncated)
        length = result["episode_length"] + live
        result = dict(
            episode_return=result["episode_return"] + jnp.where(live, state.reward, 0.0),
            episode_length=length,
            reached_time_limit=jnp.where(ends_now, state.truncated, result["reached_time_limit"]),
            **{k: jnp.where(ends_now, state.info[k], result[k]) for k in measures},
            **{f"{k}_mean": result[f"{k}_mean"] + jnp.where(live, state.info[k] - result[f"{k}_mean"], 0.0) / length
               for k in measures},
        )
        return (state, ended | ends_now, result), qpos

    @jax.jit
    def run(key):
        state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
        zeros = jnp.zeros(num_episodes)
        result = dict(episode_return=zeros, episode_length=zeros, reached_time_limit=zeros.astype(bool),
                      **{k: zeros for k in measures}, **{f"{k}_mean": zeros for k in measures})
        (_, _, result), qpos = jax.lax.scan(_eval_step, (state, zeros.astype(bool), result), None,
                                            env.config["episode_length"])
        return result, qpos

    return jax.tree.map(np.asarray, run(key))


def evaluation_summary(episodes):
    """Means over episodes. `success_rate`: for standing tasks, the share of episodes that reached the time limit with
    the pelvis at standing height."""
    summary = {k: float(np.mean(v)) for k, v in episodes.items()}
    if "standing" in episodes:
        summary["success_rate"] = float(np.mean(episodes["reached_time_limit"] & (episodes["standing"] > 0)))
    return summary


# ---------------------------------------------------------------- training run: chunks, progress, checkpoints


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
    """Per-update metric arrays of one chunk -> one dict per update, plus wall time and throughput."""
    metrics = jax.device_get(metrics)
    rows = []
    for i in range(len(metrics["env_steps"])):
        row = {"update": int(metrics["update"][i]), "env_steps": int(metrics["env_steps"][i])}
        row |= {k: float(v[i]) for k, v in metrics.items() if k not in row}
        rows.append(row | {"wall_s": wall_s, "steps_per_s": steps_per_s})
    return rows


def print_progress(row, num_updates, batch):
    rate = row["steps_per_s"]
    eta = (num_updates - row["update"]) * batch / rate
    print(f"update {row['update']}/{num_updates}  steps {row['env_steps']:,}  {rate:,.0f} steps/s  ETA {eta:,.0f}s  "
          f"return {row['episode_return']:.2f}  length {row['episode_length']:.1f}  kl {row['approx_kl']:.4f}",
          flush=True)


def start_wandb(out, config):
    """A Weights & Biases run logging into `out`; resumes the same W&B run when the folder is resumed."""
    try:
        import wandb  # optional: imported only with --wandb
    except ImportError:
        raise ConfigError("--wandb needs the wandb package: pip install wandb") from None
    name = os.path.basename(os.path.abspath(out))
    run_id = "".join(c if c.isalnum() else "-" for c in name)[:64]
    return wandb.init(project="dino-mjx", name=name, id=run_id, resume="allow", dir=out, config=config)


def start_or_resume(trainer, env, run_config, out, resume):
    """(runner, metrics rows, training wall time): restored from the folder's checkpoint, or a fresh start."""
    checkpoint_path = os.path.join(out, runs.CHECKPOINT)
    if not resume:
        runs.atomic_write(os.path.join(out, "config.json"), json.dumps(run_config, indent=1))
        return jax.jit(trainer.init)(jax.random.key(run_config["seed"])), [], 0.0
    checkpoint = runs.read_checkpoint(checkpoint_path)
    if checkpoint["config"] != json.loads(json.dumps(run_config)):
        raise runs.CheckpointError(f"{runs.checkpoint_mismatch(checkpoint_path, checkpoint, env.name)}: its config "
                                   f"differs from {os.path.join(out, 'config.json')}")
    template = jax.eval_shape(trainer.init, jax.random.key(run_config["seed"]))
    runner = runs.load_tree(checkpoint_path, checkpoint, "runner", template, env.name)
    return runner, checkpoint["rows"], checkpoint["wall_s"]


def final_evaluation(env, config, runner, seed, wall_s):
    """The trained deterministic policy over `eval_episodes` fresh episodes (seeds apart from training's)."""
    policy = deterministic_policy(config, env, runner.train_state.params, runner.normalizer)
    episodes, _ = evaluate(env, policy, jax.random.key(seed + 1_000_000), config["eval_episodes"])
    return evaluation_summary(episodes) | dict(
        episodes=config["eval_episodes"], physics="mjx", train_wall_s=wall_s, backend=jax.default_backend(),
        device=str(jax.devices()[0].device_kind))


def run(env, config, seed, out, resume=False, use_wandb=False):
    """Train `env` into the run folder `out` (or continue it from its checkpoint), then evaluate. Writes config.json,
    checkpoint.msgpack, metrics.csv and curves.png as it goes, eval.json at the end. Returns the evaluation summary,
    or None when stopped by Ctrl-C."""
    enable_compilation_cache()
    trainer = make_trainer(config, env)
    batch = config["num_envs"] * config["num_steps"]
    run_config = dict(config, env=env.name, seed=seed)
    runner, rows, wall_s = start_or_resume(trainer, env, run_config, out, resume)
    eval_path = os.path.join(out, "eval.json")
    if int(runner.update) == trainer.num_updates and os.path.exists(eval_path):
        print(f"{out} is already trained and evaluated", flush=True)
        with open(eval_path) as f:
            return json.load(f)
    chunk = chunk_length(trainer.num_updates, config["log_every"])
    print(f"env {env.name}: obs {env.observation_size}, actions {env.action_size}, {config['num_envs']} envs, "
          f"{trainer.num_updates} updates of {batch} steps, from update {int(runner.update)}; output {out}", flush=True)
    logger = start_wandb(out, run_config) if use_wandb else None

    def save():
        policy = {"params": runner.train_state.params, "normalizer": runner.normalizer}
        runs.save_checkpoint(os.path.join(out, runs.CHECKPOINT), env.name, run_config, runner.update, runner, policy,
                             rows, wall_s)
        runs.atomic_write(os.path.join(out, "metrics.csv"), runs.metrics_csv(rows))
        runs.atomic_write(os.path.join(out, "curves.png"), runs.plot_curves(rows, f"{env.name} seed {seed}"))

    saved_at = int(runner.update)
    if saved_at < trainer.num_updates:
        start = time.monotonic()
        run_chunk = jax.jit(functools.partial(trainer.run_updates, num=chunk)).lower(runner).compile()
        print(f"compiled in {time.monotonic() - start:.0f}s", flush=True)
    with stop_on_ctrl_c() as stop:
        while int(runner.update) < trainer.num_updates and not stop["requested"]:
            start = time.monotonic()
            runner, metrics = jax.block_until_ready(run_chunk(runner))
            elapsed = time.monotonic() - start
            wall_s += elapsed
            new_rows = chunk_rows(metrics, wall_s, chunk * batch / elapsed)
            rows += new_rows
            print_progress(rows[-1], trainer.num_updates, batch)
            for row in new_rows if logger else []:
                logger.log(row, step=row["env_steps"])
            update = int(runner.update)
            if update - saved_at >= config["checkpoint_every"] or update == trainer.num_updates or stop["requested"]:
                save()
                saved_at = update
    if int(runner.update) < trainer.num_updates:
        print(f"stopped at update {int(runner.update)}; checkpoint written. Continue with: "
              f"python ppo_mjx.py --resume {out}", flush=True)
        return None
    summary = final_evaluation(env, config, runner, seed, wall_s)
    runs.atomic_write(eval_path, json.dumps(summary, indent=1))
    if logger:
        logger.log({f"eval/{k}": v for k, v in summary.items() if isinstance(v, float)}, step=rows[-1]["env_steps"])
        logger.finish()
    print("evaluation (deterministic): " + "  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                                      for k, v in summary.items()), flush=True)
    return summary


# ---------------------------------------------------------------- command line


def parse_overrides(pairs):
    """`KEY=VALUE` strings -> {key: value}; VALUE is a Python literal, or a plain string."""
    overrides = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"override '{pair}' is not KEY=VALUE")
        try:
            overrides[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            overrides[key] = text
    return overrides


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Train PPO on an MJX dinosaur env (one jitted train function).")
    parser.add_argument("--env", help=f"env name (default trex_stage1), one of: {', '.join(sorted(CONFIGS))}")
    parser.add_argument("--seed", type=int, help="random seed (default 0)")
    parser.add_argument("--num-envs", type=int, help="parallel envs (config key num_envs)")
    parser.add_argument("--total-timesteps", type=int, help="env steps to train for (config key total_timesteps)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override any config key, e.g. --set lr=1e-4 --set reward_weights.posture=1.0; "
                             "repeatable; the value must have the default's type")
    parser.add_argument("--out", help="run folder (default results/runs/<env>_seed<seed>_<time>)")
    parser.add_argument("--resume", metavar="RUN_DIR", help="continue RUN_DIR from its checkpoint, with its config")
    parser.add_argument("--wandb", action="store_true", help="also log to Weights & Biases (needs `pip install wandb`)")
    return parser.parse_args(argv)


def settings_from_args(args):
    """(env name, config, seed, run folder) from the command line, or from the folder's config.json with --resume."""
    if args.resume:
        given = [flag for flag, value in [("--env", args.env), ("--seed", args.seed), ("--num-envs", args.num_envs),
                                          ("--total-timesteps", args.total_timesteps), ("--set", args.set or None),
                                          ("--out", args.out)] if value is not None]
        if given:
            raise ConfigError(f"--resume continues a run with its saved config; drop {', '.join(given)}")
        try:
            with open(os.path.join(args.resume, "config.json")) as f:
                env_name, seed, saved = from_saved(json.load(f))
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            raise ConfigError(f"{args.resume} is not a run folder with a readable config.json "
                              f"({type(error).__name__})") from None
        return env_name, get_config(env_name, saved), seed, args.resume
    overrides = parse_overrides(args.set)
    if args.num_envs is not None:
        overrides["num_envs"] = args.num_envs
    if args.total_timesteps is not None:
        overrides["total_timesteps"] = args.total_timesteps
    env_name = args.env or "trex_stage1"
    seed = 0 if args.seed is None else args.seed
    config = get_config(env_name, overrides)
    out = args.out or os.path.join(RESULTS_DIR, "runs", f"{env_name}_seed{seed}_{time.strftime('%Y%m%d-%H%M%S')}")
    return env_name, config, seed, out


def main(argv=None):
    args = parse_args(argv)
    try:
        env_name, config, seed, out = settings_from_args(args)
        check_config(config)
        summary = run(envs.env_from_config(env_name, config), config, seed, out, args.resume is not None, args.wandb)
    except (ConfigError, runs.CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if summary is None:
        sys.exit(130)  # stopped by Ctrl-C, as shells report an interrupted command


if __name__ == "__main__":
    main()
