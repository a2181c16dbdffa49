"""PPO on a vmapped MJX environment, PureJAXRL-style: `make_train(config, env)` returns ONE jittable `train(rng)`.

    python ppo_mjx.py --env trex_stage1 --seed 0
    python ppo_mjx.py --env trex_stage1 --num-envs 128 --total-timesteps 1000000 --set lr=1e-4

Differences from PureJAXRL's ppo_continuous_action.py: time-limit truncation bootstraps from the value of the
observation before the auto-reset (termination never bootstraps); observation-normalizer statistics live in the train
state; metrics are reduced to per-update scalars inside the scan; a deterministic evaluation runs at the end.
"""

import argparse
import ast
import csv
import io
import json
import math
import os
import sys
import tempfile
import time

import distrax
import flax.linen as nn
import flax.serialization
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax import struct
from flax.training.train_state import TrainState

import envs
from configs import CONFIGS, ConfigError, get_config

RESULTS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


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


def make_train(config, env, progress=None):
    """`train(rng)` runs the whole PPO training as one jittable function; `progress(update, metrics)` is called on the
    host after every update (through jax.debug.callback) when given."""
    check_config(config)
    num_envs, num_steps = config["num_envs"], config["num_steps"]
    batch_size = num_envs * num_steps
    minibatch_size = batch_size // config["num_minibatches"]
    num_updates = config["total_timesteps"] // batch_size
    network = make_network(config, env)
    lr = optax.linear_schedule(config["lr"], 0.0, num_updates * config["update_epochs"] * config["num_minibatches"])
    tx = optax.chain(optax.clip_by_global_norm(config["max_grad_norm"]),
                     optax.adam(lr if config["anneal_lr"] else config["lr"], eps=1e-5))

    def train(rng):
        rng, init_key, reset_key = jax.random.split(rng, 3)
        env_state = jax.vmap(env.reset)(jax.random.split(reset_key, num_envs))
        params = network.init(init_key, jnp.zeros(env.observation_size))
        train_state = TrainState.create(apply_fn=network.apply, params=params, tx=tx)
        normalizer = normalizer_init(env_state.obs)
        if not config["normalize_obs"]:
            normalizer = Normalizer(jnp.zeros(env.observation_size), jnp.ones(env.observation_size), jnp.zeros(()))
        runner = Runner(train_state, normalizer, env_state, jnp.zeros(num_envs), jnp.zeros(num_envs), rng)

        def _update_step(runner, update):
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
            metrics = update_metrics(traj, losses, targets, update, batch_size)
            if progress is not None:
                jax.debug.callback(progress, update, metrics)
            return runner, metrics

        runner, metrics = jax.lax.scan(_update_step, runner, jnp.arange(num_updates))
        return {"runner": runner, "metrics": metrics}

    return train


def update_metrics(traj, losses, targets, update, batch_size):
    """Per-update scalars: memory stays constant in steps x envs."""
    done = traj.terminated | traj.truncated
    episodes = done.sum()
    per_episode = lambda x: jnp.where(episodes > 0, x.sum() / jnp.maximum(episodes, 1), jnp.nan)
    residual = targets - traj.value
    metrics = dict(
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
    """`policy` (obs -> action) for one episode in each of `num_episodes` envs. Per episode: return, length, whether
    it reached the time limit, and each task metric at its last step."""

    def _eval_step(carry, _):
        state, ended, result = carry
        state = jax.vmap(env.step)(state, policy(state.obs))
        live = ~ended
        ends_now = live & (state.terminated | state.truncated)
        result = dict(
            episode_return=result["episode_return"] + jnp.where(live, state.reward, 0.0),
            episode_length=result["episode_length"] + live,
            reached_time_limit=jnp.where(ends_now, state.truncated, result["reached_time_limit"]),
            **{k: jnp.where(ends_now, state.info[k], result[k]) for k in result if k in state.info},
        )
        return (state, ended | ends_now, result), None

    @jax.jit
    def run(key):
        state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
        zeros = jnp.zeros(num_episodes)
        result = dict(episode_return=zeros, episode_length=zeros, reached_time_limit=zeros.astype(bool),
                      **{k: zeros for k in state.info if not k.startswith("reward/") and k != "nan_reset"})
        (_, _, result), _ = jax.lax.scan(_eval_step, (state, zeros.astype(bool), result), None,
                                         env.config["episode_length"])
        return result

    return jax.tree.map(np.asarray, run(key))


def evaluation_summary(episodes):
    """Means over episodes; for standing tasks also the share that reached the time limit while standing."""
    summary = {k: float(np.mean(v)) for k, v in episodes.items()}
    if "standing" in episodes:
        summary["time_limit_standing"] = float(np.mean(episodes["reached_time_limit"] & (episodes["standing"] > 0)))
    return summary


# ---------------------------------------------------------------- command line: parse, run, write outputs


def atomic_write(path, data):
    """Write bytes or text to `path` through a temporary file and a rename: never a half-written file."""
    directory = os.path.dirname(path)
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        os.chmod(tmp, 0o644)  # mkstemp creates owner-only files
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def metrics_csv(metrics):
    """Per-update metrics (dict of [num_updates] arrays) as CSV text, one row per update."""
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["update", *metrics])
    for i, row in enumerate(zip(*(np.asarray(v).tolist() for v in metrics.values()))):
        writer.writerow([i, *row])
    return out.getvalue()


class Progress:
    """Host-side progress printer fed by jax.debug.callback: update, env steps, steps/s, ETA, return."""

    def __init__(self, config):
        self.num_updates = config["total_timesteps"] // (config["num_envs"] * config["num_steps"])
        self.log_every = config["log_every"]
        self.start = None

    def __call__(self, update, metrics):
        update = int(update)
        now = time.monotonic()
        if self.start is None:  # the clock starts after the first update, so compilation is not counted
            self.start, self.start_steps = now, int(metrics["env_steps"])
        last = update + 1 == self.num_updates
        if update % self.log_every and not last:
            return
        steps = int(metrics["env_steps"])
        rate = (steps - self.start_steps) / max(now - self.start, 1e-9)
        eta = f"{(self.num_updates - update - 1) * (steps / (update + 1)) / rate:,.0f}s" if rate > 0 else "?"
        print(f"update {update + 1}/{self.num_updates}  steps {steps:,}  {rate:,.0f} steps/s  ETA {eta}  "
              f"return {float(metrics['episode_return']):.2f}  length {float(metrics['episode_length']):.1f}  "
              f"kl {float(metrics['approx_kl']):.4f}", flush=True)


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
    parser.add_argument("--env", default="trex_stage1", help=f"env name, one of: {', '.join(sorted(CONFIGS))}")
    parser.add_argument("--seed", type=int, default=0, help="random seed")
    parser.add_argument("--num-envs", type=int, help="parallel envs (config key num_envs)")
    parser.add_argument("--total-timesteps", type=int, help="env steps to train for (config key total_timesteps)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override any config key, e.g. --set lr=1e-4 --set reward_weights.posture=1.0; "
                             "repeatable; the value must have the default's type")
    parser.add_argument("--out", help="run folder (default results/runs/<env>_seed<seed>_<time>)")
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        overrides = parse_overrides(args.set)
        if args.num_envs is not None:
            overrides["num_envs"] = args.num_envs
        if args.total_timesteps is not None:
            overrides["total_timesteps"] = args.total_timesteps
        config = get_config(args.env, overrides)
        check_config(config)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    out = args.out or os.path.join(RESULTS_DIR, "runs", f"{args.env}_seed{args.seed}_{time.strftime('%Y%m%d-%H%M%S')}")
    run(args.env, config, args.seed, out)


def run(env_name, config, seed, out):
    """Train, evaluate, and write config.json, metrics.csv, params.msgpack and eval.json into `out`."""
    jax.config.update("jax_compilation_cache_dir", os.path.expanduser("~/.cache/dino_mjx/jax"))
    env = envs.env_from_config(env_name, config)
    batch = config["num_envs"] * config["num_steps"]
    print(f"env {env_name}: obs {env.observation_size}, actions {env.action_size}, {config['num_envs']} envs, "
          f"{config['total_timesteps'] // batch} updates of {batch} steps; output {out}", flush=True)
    atomic_write(os.path.join(out, "config.json"), json.dumps(dict(config, env=env_name, seed=seed), indent=1))
    train = jax.jit(make_train(config, env, Progress(config)))
    start = time.monotonic()
    result = jax.block_until_ready(train(jax.random.key(seed)))
    wall = time.monotonic() - start
    runner = result["runner"]
    atomic_write(os.path.join(out, "metrics.csv"), metrics_csv(result["metrics"]))
    atomic_write(os.path.join(out, "params.msgpack"), flax.serialization.to_bytes(
        {"params": runner.train_state.params, "normalizer": runner.normalizer}))
    policy = deterministic_policy(config, env, runner.train_state.params, runner.normalizer)
    summary = evaluation_summary(evaluate(env, policy, jax.random.key(seed + 1_000_000), config["eval_episodes"]))
    summary |= dict(episodes=config["eval_episodes"], train_wall_s=wall, backend=jax.default_backend(),
                    device=str(jax.devices()[0].device_kind))
    atomic_write(os.path.join(out, "eval.json"), json.dumps(summary, indent=1))
    print("evaluation (deterministic): " + "  ".join(f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}"
                                                      for k, v in summary.items()), flush=True)
    return summary


if __name__ == "__main__":
    main()
