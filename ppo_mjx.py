"""PPO on a vmapped MJX environment, PureJAXRL-style: `make_train(config, env)` returns ONE jittable `train(rng)`.

    python ppo_mjx.py --env trex_stage1 --seed 0
    python ppo_mjx.py --env trex_stage1 --num-envs 128 --total-timesteps 1000000 --set lr=1e-4
    python ppo_mjx.py --resume results/runs/trex_stage1_seed0_20261122-101500
    python ppo_mjx.py --env trex_stage1 --num-seeds 8 --sweep lr=1e-4,3e-4 --sweep ent_coef=0,1e-3   # one program

Differences from PureJAXRL's ppo_continuous_action.py: time-limit truncation bootstraps from the value of the
observation before the auto-reset (termination never bootstraps); observation-normalizer statistics live in the train
state; metrics are reduced to per-update scalars inside the scan; the CLI runs the update scan in chunks with
checkpoints between them (exact resume, clean Ctrl-C); a deterministic evaluation runs at the end. Numeric
hyperparameters are array inputs of the program, so seeds and sweeps vmap into one program laid out over all devices.
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
from configs import (CONFIGS, SWEEPABLE, ConfigError, curriculum_stages, flatten, from_saved, get_config,
                     parse_sweeps, sweep_grid, with_overrides)

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


def hyperparameters(config):
    """The sweepable numbers of `config` (configs.SWEEPABLE and the reward weights) as float32 arrays. The trainer
    reads them from this pytree, not from the config, so the members of one vmapped program can differ in them."""
    return dict({k: jnp.float32(config[k]) for k in SWEEPABLE},
                reward_weights={k: jnp.float32(v) for k, v in config["reward_weights"].items()})


@dataclass(frozen=True)
class Trainer:
    """The PPO program in two pure pieces: `init(rng) -> Runner` and `run_updates(runner, hparams, n) -> (runner,
    metrics)` for a static number of updates, `hparams` as made by `hyperparameters`. `make_train` composes them into
    one `train(rng)`; the CLI vmaps `run_updates` over runs and calls it in chunks so it can print progress,
    checkpoint and stop cleanly between them."""

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
    num_optimizer_steps = num_updates * config["update_epochs"] * config["num_minibatches"]

    def make_optimizer(lr, max_grad_norm):
        """Built from (possibly traced) hyperparameters wherever it is used; its state's structure never depends on
        their values, so `init` can shape it from the config's."""
        schedule = optax.linear_schedule(lr, 0.0, num_optimizer_steps) if config["anneal_lr"] else lr
        return optax.chain(optax.clip_by_global_norm(max_grad_norm), optax.adam(schedule, eps=1e-5))

    config_tx = make_optimizer(config["lr"], config["max_grad_norm"])  # one object: the runner's static metadata

    def init(rng):
        rng, init_key, reset_key = jax.random.split(rng, 3)
        env_state = jax.vmap(env.reset)(jax.random.split(reset_key, num_envs))
        params = network.init(init_key, jnp.zeros(env.observation_size))
        train_state = TrainState.create(apply_fn=network.apply, params=params, tx=config_tx)
        normalizer = normalizer_init(env_state.obs)
        if not config["normalize_obs"]:
            normalizer = Normalizer(jnp.zeros(env.observation_size), jnp.ones(env.observation_size), jnp.zeros(()))
        zeros = jnp.zeros(num_envs)
        return Runner(train_state, normalizer, env_state, zeros, zeros, rng, jnp.zeros((), jnp.int32))

    def _update_step(hp, runner, _):
        def _env_step(runner, _):
            rng, action_key = jax.random.split(runner.rng)
            pi, value = network.apply(runner.train_state.params, normalize(runner.normalizer, runner.env_state.obs))
            action = pi.sample(seed=action_key)
            env_state = jax.vmap(env.step, in_axes=(0, 0, None))(runner.env_state, action, hp["reward_weights"])
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
                                  hp["gamma"], hp["gae_lambda"])

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
                    value_clipped = old_value + jnp.clip(value - old_value, -hp["clip_eps"], hp["clip_eps"])
                    value_loss = 0.5 * jnp.maximum(jnp.square(value - target),
                                                   jnp.square(value_clipped - target)).mean()
                    log_ratio = pi.log_prob(action) - old_log_prob
                    ratio = jnp.exp(log_ratio)
                    advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
                    actor_loss = -jnp.minimum(
                        ratio * advantage,
                        jnp.clip(ratio, 1.0 - hp["clip_eps"], 1.0 + hp["clip_eps"]) * advantage).mean()
                    entropy = pi.entropy().mean()
                    total = actor_loss + hp["vf_coef"] * value_loss - hp["ent_coef"] * entropy
                    return total, dict(
                        actor_loss=actor_loss, value_loss=value_loss, entropy=entropy,
                        approx_kl=((ratio - 1.0) - log_ratio).mean(),
                        clip_fraction=(jnp.abs(ratio - 1.0) > hp["clip_eps"]).mean())

                grads, losses = jax.grad(_loss_fn, has_aux=True)(train_state.params, minibatch)
                losses["grad_norm"] = optax.tree.norm(grads)
                tx = make_optimizer(hp["lr"], hp["max_grad_norm"])
                updates, opt_state = tx.update(grads, train_state.opt_state, train_state.params)
                train_state = train_state.replace(step=train_state.step + 1, opt_state=opt_state,
                                                  params=optax.apply_updates(train_state.params, updates))
                return train_state, losses

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

    def run_updates(runner, hparams, num):
        return jax.lax.scan(functools.partial(_update_step, hparams), runner, None, num)

    return Trainer(init, run_updates, num_updates)


def make_train(config, env):
    """`train(rng, hparams=None)` runs the whole PPO training as one jittable function: {"runner": final state,
    "metrics": per-update scalars}. `hparams` (default: the config's, see `hyperparameters`) may hold traced values,
    so `jax.vmap(train)(keys, hparams)` runs a batch of seeds and hyperparameter settings as one program."""
    trainer = make_trainer(config, env)

    def train(rng, hparams=None):
        hparams = hyperparameters(config) if hparams is None else hparams
        runner, metrics = trainer.run_updates(trainer.init(rng), hparams, trainer.num_updates)
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


def evaluation_rollout(env, policy, key, num_episodes, reward_weights=None):
    """`policy` (obs -> action) for one episode in each of `num_episodes` envs; traceable. Returns (episodes, poses):
    per episode its return, length, whether it reached the time limit, each task metric at its last step and its mean
    over the episode (`<name>_mean`); and poses [steps, episodes, nq + 3 nmocap], qpos then the mocap (target)
    positions, for rendering (valid below each length)."""
    measures = [k for k in jax.eval_shape(env.reset, key).info if not k.startswith("reward/") and k != "nan_reset"]

    def _eval_step(carry, _):
        state, ended, result = carry
        poses = jnp.concatenate([state.data.qpos, state.data.mocap_pos.reshape(num_episodes, -1)], axis=-1)
        state = jax.vmap(env.step, in_axes=(0, 0, None))(state, policy(state.obs), reward_weights)
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
        return (state, ended | ends_now, result), poses

    state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
    zeros = jnp.zeros(num_episodes)
    result = dict(episode_return=zeros, episode_length=zeros, reached_time_limit=zeros.astype(bool),
                  **{k: zeros for k in measures}, **{f"{k}_mean": zeros for k in measures})
    (_, _, result), poses = jax.lax.scan(_eval_step, (state, zeros.astype(bool), result), None,
                                         env.config["episode_length"])
    return result, poses


def evaluate(env, policy, key, num_episodes):
    """`evaluation_rollout`, compiled and brought to the host as numpy arrays."""
    return jax.device_get(jax.jit(lambda key: evaluation_rollout(env, policy, key, num_episodes))(key))


def evaluation_summary(episodes):
    """Means over episodes. `success_rate`: for tasks with a goal, the share of episodes that ended reaching it; for
    standing tasks, the share that reached the time limit with the pelvis at standing height."""
    summary = {k: float(np.mean(v)) for k, v in episodes.items()}
    if "success" in episodes:
        summary["success_rate"] = float(np.mean(episodes["success"] > 0))
    elif "standing" in episodes:
        summary["success_rate"] = float(np.mean(episodes["reached_time_limit"] & (episodes["standing"] > 0)))
    return summary


def evaluation_metric_names(env):
    """The metric names of `env`'s evaluation summaries (eval.json), found by tracing, not running, an evaluation."""
    zero_policy = lambda obs: jnp.zeros(obs.shape[:-1] + (env.action_size,))
    shapes = jax.eval_shape(lambda key: evaluation_rollout(env, zero_policy, key, 1)[0], jax.random.key(0))
    return sorted(evaluation_summary({k: np.zeros(s.shape, s.dtype) for k, s in shapes.items()}))


def policy_template(config, env):
    """Shapes of a policy ({params, normalizer}) for `env` with `config`'s network."""
    obs = jnp.zeros(env.observation_size)
    return {"params": jax.eval_shape(make_network(config, env).init, jax.random.key(0), obs),
            "normalizer": jax.eval_shape(normalizer_init, obs[None])}


def load_policy(path, checkpoint, config, env):
    """The policy ({params, normalizer}) stored in `checkpoint` (read from `path`), checked against the network
    `config` builds for `env`."""
    return runs.load_tree(path, checkpoint, "policy", policy_template(config, env), env.name)


# ---------------------------------------------------------------- training runs: members, devices, chunks, checkpoints


@dataclass(frozen=True)
class Member:
    """One run of a group trained as one vmapped program: members share every structural setting and differ only in
    seed and sweepable values. A lone run is a group of one."""

    name: str
    config: dict
    seed: int
    out: str  # its run folder
    setting: dict  # its swept values ({} outside a sweep)


@dataclass(frozen=True)
class Layout:
    """Where the members' batched arrays live: a sharding per Runner leaf, one for the hyperparameters."""

    runner: Runner
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
    """seeds [members] -> fresh runners batched along a leading member axis."""
    return lambda seeds: jax.vmap(trainer.init)(jax.vmap(jax.random.key)(seeds))


def member_layout(trainer, config, seeds, devices):
    """The Layout of a member per seed over `devices`."""
    shape = jax.eval_shape(seeded_init(trainer), np.asarray(seeds, np.int32))
    return device_layout(shape, len(seeds), config["num_envs"], devices)


def init_members(trainer, seeds, layout):
    """Fresh runners, one per seed, laid out on the devices. Host (numpy) inputs, so that every process of a
    multi-host run passes the same global value."""
    return jax.jit(seeded_init(trainer), out_shardings=layout.runner)(np.asarray(seeds, np.int32))


def compile_updates(trainer, layout, runner, hparams, num):
    """`run_updates` for `num` updates, vmapped over members and laid out by `layout`, compiled for these arrays."""
    program = jax.jit(jax.vmap(functools.partial(trainer.run_updates, num=num)),
                      in_shardings=(layout.runner, layout.hparams), out_shardings=(layout.runner, layout.replicated))
    return program.lower(runner, hparams).compile()


def member_hparams(configs, layout):
    """The members' `hyperparameters`, stacked and laid out on the devices (from host values, as every process of a
    multi-host run passes the same global value)."""
    return jax.device_put(jax.device_get(stack([hyperparameters(c) for c in configs])), layout.hparams)


def replicator(layout):
    """A compiled copy that puts a full copy of a tree on every device, so that every process can read all of it
    (across hosts too)."""
    return jax.jit(lambda tree: tree, out_shardings=layout.replicated)


def stack(trees):
    """Pytrees of equal structure -> one pytree with a leading member axis."""
    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)


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


def start_or_resume(trainer, env, members, layout, resume, warm_start=None):
    """(batched runner, each member's metrics rows, training wall time): restored from the members' checkpoints, or
    a fresh start, whose params and normalizer are `warm_start`'s ({params, normalizer}) when given."""
    if not resume:
        for member in members:
            runs.atomic_write(os.path.join(member.out, "config.json"), json.dumps(run_config(env, member), indent=1))
        runner = init_members(trainer, [m.seed for m in members], layout)
        if warm_start:
            copies = stack([warm_start] * len(members))
            runner = jax.device_put(runner.replace(train_state=runner.train_state.replace(params=copies["params"]),
                                                   normalizer=copies["normalizer"]), layout.runner)
        return runner, [[] for _ in members], 0.0
    runners, rows, wall_s = [], [], 0.0
    for member in members:
        path = os.path.join(member.out, runs.CHECKPOINT)
        checkpoint = runs.read_checkpoint(path)
        if checkpoint["config"] != json.loads(json.dumps(run_config(env, member))):
            raise runs.CheckpointError(f"{runs.checkpoint_mismatch(path, checkpoint, env.name)}: its config differs "
                                       f"from {os.path.join(member.out, 'config.json')}")
        template = jax.eval_shape(trainer.init, jax.random.key(member.seed))
        runners.append(runs.load_tree(path, checkpoint, "runner", template, env.name))
        rows.append(checkpoint["rows"])
        wall_s = max(wall_s, checkpoint["wall_s"])
    if len({len(r) for r in rows}) > 1:
        raise runs.CheckpointError(f"the runs' checkpoints stopped at different updates "
                                   f"({', '.join(str(len(r)) for r in rows)}): resume them one by one")
    return jax.device_put(stack(runners), layout.runner), rows, wall_s


def make_evaluation(env, config, layout):
    """(runner, hparams, seeds) -> every member's evaluation summary: its deterministic policy over `eval_episodes`
    fresh episodes (seeds apart from training's, the same at every call), scored with its own reward weights, all
    members in one vmapped program compiled once (gates call it during training, the run's end once more)."""

    def evaluate_member(params, normalizer, hp, seed):
        policy = deterministic_policy(config, env, params, normalizer)
        key = jax.random.key(seed + 1_000_000)
        return evaluation_rollout(env, policy, key, config["eval_episodes"], hp["reward_weights"])[0]

    program = jax.jit(jax.vmap(evaluate_member), out_shardings=layout.replicated)

    def evaluation(runner, hparams, seeds):
        episodes = jax.device_get(program(runner.train_state.params, runner.normalizer, hparams,
                                          np.asarray(seeds, np.int32)))
        return [evaluation_summary(jax.tree.map(lambda x: x[i], episodes)) | dict(
            episodes=config["eval_episodes"], physics="mjx", backend=jax.default_backend(),
            device=str(jax.devices()[0].device_kind)) for i in range(len(seeds))]

    return evaluation


def gate_decision(gate, summary, previous):
    """One gate evaluation: `summary` passes when every metric of `gate["min"]` is at least its threshold; the gate
    passes when `gate["consecutive"]` evaluations in a row have passed, counting the `previous` decisions."""
    failing = {k: summary[k] for k, threshold in gate["min"].items() if not summary[k] >= threshold}
    streak = 0 if failing else (previous[-1]["consecutive"] if previous else 0) + 1
    return dict(metrics={k: summary[k] for k in gate["min"]}, passed=not failing, consecutive=streak,
                gate_passed=streak >= gate["consecutive"])


def check_gate(gate, env):
    """ConfigError unless every metric `gate` names is one that `env`'s evaluation reports."""
    known = evaluation_metric_names(env)
    unknown = sorted(set(gate["min"]) - set(known))
    if unknown:
        raise ConfigError(f"env '{env.name}': the gate names {', '.join(unknown)}, which its evaluation does not "
                          f"report; metrics: {', '.join(known)}")
    if gate["consecutive"] < 1 or gate["eval_every"] < 1:
        raise ConfigError(f"env '{env.name}': gate consecutive and eval_every must be at least 1")


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


def run_members(env, members, group_out=None, resume=False, use_wandb=False, devices=None, gate=None,
                warm_start=None):
    """Train `members` as one vmapped program spread over `devices` (default: all), each into its run folder, or
    continue them from their checkpoints; then evaluate each. A group (`group_out` set) also gets group.json,
    curves.png with every member's curve and the mean band, summary.json and summary.md. Each run folder holds
    config.json, checkpoint.msgpack, metrics.csv, curves.png and, at the end, eval.json. With a `gate` (see
    configs/stages.py; one member) the policy is evaluated every `eval_every` updates, each decision appended to
    gate.json, and training ends early once the gate passes; eval.json then records the outcome. `warm_start`
    ({params, normalizer}) replaces the fresh params and normalizer. Returns the members' evaluation summaries, or
    None when stopped by Ctrl-C."""
    enable_compilation_cache()
    config = members[0].config
    trainer = make_trainer(config, env)
    batch = config["num_envs"] * config["num_steps"]
    seeds = [m.seed for m in members]
    layout = member_layout(trainer, config, seeds, devices or jax.devices())
    hparams = member_hparams([m.config for m in members], layout)
    replicated = replicator(layout)  # one compile, reused by every checkpoint
    evaluation = make_evaluation(env, config, layout)
    if group_out and not resume:
        write_group(group_out, env.name, members)
    runner, rows, wall_s = start_or_resume(trainer, env, members, layout, resume, warm_start)
    decisions, gate_path = [], os.path.join(members[0].out, "gate.json")
    eval_paths = [os.path.join(m.out, "eval.json") for m in members]
    if len(rows[0]) == trainer.num_updates and all(map(os.path.exists, eval_paths)):
        print(f"{group_out or members[0].out} is already trained and evaluated", flush=True)
        return [json.loads(open(path).read()) for path in eval_paths]
    chunk = chunk_length(trainer.num_updates, config["log_every"])
    print(f"env {env.name}: obs {env.observation_size}, actions {env.action_size}, {len(members)} run(s) of "
          f"{config['num_envs']} envs on {len(devices or jax.devices())} device(s), {trainer.num_updates} updates of "
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

    saved_at = gated_at = len(rows[0])
    if saved_at < trainer.num_updates:
        start = time.monotonic()
        run_chunk = compile_updates(trainer, layout, runner, hparams, chunk)
        print(f"compiled in {time.monotonic() - start:.0f}s", flush=True)
    passed = False
    with stop_on_ctrl_c() as stop:
        while len(rows[0]) < trainer.num_updates and not stop["requested"] and not passed:
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
            if gate and update - gated_at >= gate["eval_every"]:
                decisions.append(dict(update=update, env_steps=rows[0][-1]["env_steps"], wall_s=wall_s)
                                 | gate_decision(gate, evaluation(runner, hparams, seeds)[0], decisions))
                runs.atomic_write(gate_path, json.dumps(dict(gate=gate, decisions=decisions), indent=1))
                print(f"gate: {decisions[-1]['metrics']} -> {'pass' if decisions[-1]['passed'] else 'fail'} "
                      f"({decisions[-1]['consecutive']}/{gate['consecutive']} in a row)", flush=True)
                passed, gated_at = decisions[-1]["gate_passed"], update
            if (update - saved_at >= config["checkpoint_every"] or update == trainer.num_updates or stop["requested"]
                    or passed):
                save()
                saved_at = update
    if len(rows[0]) < trainer.num_updates and not passed:
        print(f"stopped at update {len(rows[0])}; checkpoint written. Continue with: "
              f"python ppo_mjx.py --resume {group_out or members[0].out}", flush=True)
        return None
    summaries = [s | dict(train_wall_s=wall_s, env_steps=r[-1]["env_steps"])
                 for s, r in zip(evaluation(runner, hparams, seeds), rows)]
    if gate:
        summaries[0]["gate"] = dict(passed=passed, evaluations=len(decisions), min=gate["min"],
                                    consecutive=gate["consecutive"])
    for member, summary, path in zip(members, summaries, eval_paths):
        runs.atomic_write(path, json.dumps(summary, indent=1))
        print(f"evaluation of {member.name} (deterministic): " + "  ".join(
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


# ---------------------------------------------------------------- curriculum


def stage_configs(species, overrides):
    """(stage env names, their configs) for `species`; each override applies to every stage that has its key."""
    names = curriculum_stages(species)
    keys = [dict(flatten(CONFIGS[name])) for name in names]
    for key in overrides:
        if not any(key in k for k in keys):
            raise ConfigError(f"no stage of '{species}' has config key '{key}'")
    return names, [get_config(name, {k: v for k, v in overrides.items() if k in known})
                   for name, known in zip(names, keys)]


def curriculum_envs(names, configs):
    """Each stage's env, checked: trainable config, a gate naming metrics its evaluation reports, and the same
    observation and action sizes in every stage (a policy must carry over)."""
    stage_envs = []
    for name, config in zip(names, configs):
        check_config(config)
        env = envs.env_from_config(name, config)
        check_gate(config["gate"], env)
        first = stage_envs[0] if stage_envs else env
        if (env.observation_size, env.action_size) != (first.observation_size, first.action_size):
            raise ConfigError(f"{name} has {env.observation_size} observations and {env.action_size} actions, "
                              f"{first.name} {first.observation_size} and {first.action_size}: the stages of a "
                              f"curriculum must share them")
        stage_envs.append(env)
    return stage_envs


def warm_start_policy(path, config, env):
    """The previous stage's final policy, for this stage's network, its log std restarted at `warm_start_log_std`
    so that the policy explores the new task (the normalizer's statistics carry over as they are)."""
    policy = load_policy(path, runs.read_checkpoint(path), config, env)
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
    """Train `species` through its stages into `out`/<stage>/ (complete run folders, each with gate.json). A stage
    ends when its gate passes or its step budget runs out; the next starts from its final params and normalizer.
    curriculum.json and curriculum.md record every stage's outcome as it ends. Returns the stage records, or None
    when stopped by Ctrl-C."""
    names, configs = stage_configs(species, overrides or {})
    stage_envs = curriculum_envs(names, configs)
    records, machine = [], runs.machine()
    for i, (name, config, env) in enumerate(zip(names, configs, stage_envs)):
        print(f"curriculum {species}: stage {i + 1}/{len(names)}, {name}", flush=True)
        warm = warm_start_policy(os.path.join(out, names[i - 1], runs.CHECKPOINT), config, env) if i else None
        summaries = run_members(env, [Member(name, config, seed, os.path.join(out, name), {})], None, False,
                                use_wandb, gate=config["gate"], warm_start=warm)
        if summaries is None:
            return None
        records.append(stage_record(name, summaries[0]))
        runs.atomic_write(os.path.join(out, "curriculum.json"),
                          json.dumps(dict(species=species, seed=seed, machine=machine, stages=records), indent=1))
        runs.atomic_write(os.path.join(out, "curriculum.md"), curriculum_markdown(species, records, machine))
    return records


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
    parser.add_argument("--resume", metavar="DIR", help="continue a run or group folder from its checkpoints")
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
        raise ConfigError(f"{folder} is not a run or group folder with readable config.json files "
                          f"({type(error).__name__})") from None
    members = [Member(d["name"], get_config(env_name, overrides), seed, out, d["setting"])
               for d, out, (env_name, seed, overrides) in zip(described, outs, saved)]
    return saved[0][0], members, folder if group else None


def overrides_from_args(args):
    """The config overrides --set, --num-envs and --total-timesteps ask for."""
    overrides = parse_overrides(args.set)
    if args.num_envs is not None:
        overrides["num_envs"] = args.num_envs
    if args.total_timesteps is not None:
        overrides["total_timesteps"] = args.total_timesteps
    return overrides


def settings_from_args(args):
    """(env name, members, group folder or None) from the command line, or from a folder's saved configs with
    --resume. Several seeds or a sweep make a group: one folder with a run folder per member."""
    if args.resume:
        given = [flag for flag, value in [("--env", args.env), ("--seed", args.seed), ("--num-seeds", args.num_seeds),
                                          ("--sweep", args.sweep or None), ("--num-envs", args.num_envs),
                                          ("--total-timesteps", args.total_timesteps), ("--set", args.set or None),
                                          ("--out", args.out)] if value is not None]
        if given:
            raise ConfigError(f"--resume continues runs with their saved configs; drop {', '.join(given)}")
        return resume_settings(args.resume)
    overrides = overrides_from_args(args)
    env_name = args.env or "trex_stage1"
    seed = 0 if args.seed is None else args.seed
    num_seeds = 1 if args.num_seeds is None else args.num_seeds
    if num_seeds < 1:
        raise ConfigError(f"--num-seeds must be at least 1, got {num_seeds}")
    config = get_config(env_name, overrides)
    grid = sweep_grid(parse_sweeps(args.sweep, config))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    if not args.sweep and num_seeds == 1:
        out = args.out or os.path.join(RESULTS_DIR, "runs", f"{env_name}_seed{seed}_{stamp}")
        return env_name, [Member(os.path.basename(out), config, seed, out, {})], None
    kind = "sweep" if args.sweep else f"{num_seeds}seeds"
    group_out = args.out or os.path.join(RESULTS_DIR, "runs", f"{env_name}_{kind}_seed{seed}_{stamp}")
    return env_name, group_members(config, seed, num_seeds, grid, group_out), group_out


def group_members(config, seed, num_seeds, grid, group_out):
    """A member per sweep setting of `grid` and seed (settings outer), each in its run folder under `group_out`."""
    members = []
    for setting in grid:
        member_config = with_overrides(config, setting)
        for member_seed in range(seed, seed + num_seeds):
            name = f"{runs.setting_label(setting)}_seed{member_seed}" if setting else f"seed{member_seed}"
            members.append(Member(name, member_config, member_seed, os.path.join(group_out, name), setting))
    return members


def curriculum_from_args(args):
    """(species, seed, curriculum folder, overrides) for --curriculum."""
    refused = [flag for flag, value in [("--num-seeds", args.num_seeds), ("--sweep", args.sweep or None),
                                        ("--resume", args.resume), ("--distributed", args.distributed)]
               if value is not None]
    if refused:
        raise ConfigError(f"--curriculum trains one run stage by stage; drop {', '.join(refused)}")
    if not args.env:
        raise ConfigError("--curriculum needs --env SPECIES, e.g. --env trex")
    seed = 0 if args.seed is None else args.seed
    out = args.out or os.path.join(RESULTS_DIR, "runs",
                                   f"{args.env}_curriculum_seed{seed}_{time.strftime('%Y%m%d-%H%M%S')}")
    return args.env, seed, out, overrides_from_args(args)


def main(argv=None):
    args = parse_args(argv)
    try:
        if args.curriculum:
            summaries = run_curriculum(*curriculum_from_args(args), use_wandb=args.wandb)
        else:
            if args.distributed:
                start_distributed(args.distributed)
            env_name, members, group_out = settings_from_args(args)
            check_config(members[0].config)
            env = envs.env_from_config(env_name, members[0].config)
            summaries = run_members(env, members, group_out, args.resume is not None, args.wandb)
    except (ConfigError, runs.CheckpointError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if summaries is None:
        sys.exit(130)  # stopped by Ctrl-C, as shells report an interrupted command


if __name__ == "__main__":
    main()
