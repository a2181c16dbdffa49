"""PPO on a vmapped MJX environment, PureJAXRL-style: `make_train(config, env)` returns ONE jittable `train(rng)`.

    python ppo_mjx.py --env trex_stage1 --seed 0        # the command line lives in cli.py

The algorithm alone (jax, flax, optax, distrax): copy it into another project with its env, ours (envs.py) or any
other. What it needs of an env (gymnax's interface):
    env.observation_size, env.action_size    ints
    env.reset(key) -> state                  one env; the trainer vmaps it
    env.step(state, action, params) -> state the action unclipped; `params` any pytree the env reads (reward weights,
                                             say), passed on from `hparams["env_params"]`
    env.default_params                       the params `train` uses when given no `hparams`
and of a state: `obs`, `reward`, `terminated` (no bootstrap), `truncated` (the time limit: bootstrap from `final_obs`,
the observation before the auto-reset), `final_obs` and `info`, per-step scalars the metrics average (an optional
`nan_reset` is counted). A state whose `critic_obs` and `final_critic_obs` are arrays gives the critic a privileged
observation with statistics of its own; the policy reads `obs` alone, in training as deployed.

Read top to bottom: network, normalizer, GAE, loss, hyperparameters and optimizer, the trainer (`_env_step`,
`_calculate_gae`, `_mirror_images`, `_update_epoch`, `_update_minibatch`), `make_train`, metrics, the policy to
evaluate. `make_trainer` splits the program into `init` and `run_updates`, so that training.py runs it in chunks.

Beyond PureJAXRL's ppo_continuous_action.py: truncation bootstraps (termination never does); exploration noise may be
correlated in time (`exploring_gaussian`); the normalizer lives in the train state; metrics are per-update scalars;
numeric hyperparameters and env params are array inputs (`hparams`), so seeds and sweeps vmap into one program
(`jax.vmap(train)(keys, stack([hparams, ...]))`); the learning rate may adapt to the KL as rsl_rl's does
(`desired_kl`); an env with a left-right `mirror` may train on mirror images and pay for asymmetry, as rsl_rl's
symmetry augmentation does (`symmetry_augmentation`, `symmetry_loss`), an image's ratio from its sample's log-prob or,
decoupled, from 1 (`symmetry_ratio_from_image`).
"""

if __name__ == "__main__":  # the command line (cli.py): settings that XLA reads when it loads, first
    import startup

    startup.before_jax()

import functools
import math
from dataclasses import dataclass
from typing import Any, Callable

import distrax
import flax.linen as nn
import jax
import jax.numpy as jnp
import optax
from flax import struct


class ActorCritic(nn.Module):
    """Separate tanh MLPs: (action mean, state-independent log-std, value); raw outputs, no distribution object, so
    the mean traces with a symbolic batch size for ONNX export. The critic reads `critic_obs` where there is one, else
    `obs`; acting (`value=False`) skips it."""

    action_size: int
    actor_hidden: tuple
    critic_hidden: tuple
    init_log_std: float

    @nn.compact
    def __call__(self, obs, critic_obs=None, value=True):
        x = obs
        for width in self.actor_hidden:
            x = nn.tanh(nn.Dense(width, kernel_init=nn.initializers.orthogonal(math.sqrt(2)))(x))
        mean = nn.Dense(self.action_size, kernel_init=nn.initializers.orthogonal(0.01))(x)
        log_std = self.param("log_std", nn.initializers.constant(self.init_log_std), (self.action_size,))
        if not value:
            return mean, log_std, None
        v = obs if critic_obs is None else critic_obs
        for width in self.critic_hidden:
            v = nn.tanh(nn.Dense(width, kernel_init=nn.initializers.orthogonal(math.sqrt(2)))(v))
        value = nn.Dense(1, kernel_init=nn.initializers.orthogonal(1.0))(v)
        return mean, log_std, value[..., 0]


def gaussian(mean, log_std):
    """The policy: a diagonal Gaussian, exact log-prob and entropy on the unclipped sample (the env clips to [-1, 1];
    a tanh squash needs a log-det correction and has no closed-form entropy)."""
    return distrax.MultivariateNormalDiag(mean, jnp.exp(log_std))


def exploring_gaussian(mean, log_std, carried_noise, correlation):
    """The rollout's policy with exploration noise correlated in time (`action_noise_correlation`): AR(1) noise, N(0, 1)
    per step in its stationary law. Around the mean plus `carried_noise` (correlation times the last standardized
    noise), with the fresh part's std, std * sqrt(1 - correlation^2), so the ratio and entropy credit each step with its
    fresh noise alone; at 0 it is `gaussian`. Why: on gripping contacts white jitter alone can hold a body up, and the
    mean action learnt that way falls."""
    if not correlation:  # a static setting
        return gaussian(mean, log_std)
    return gaussian(mean + jnp.exp(log_std) * carried_noise, log_std + 0.5 * math.log(1.0 - correlation**2))


def make_network(config, action_size):
    return ActorCritic(action_size, tuple(config["actor_hidden"]), tuple(config["critic_hidden"]),
                       config["init_log_std"])


@struct.dataclass
class Normalizer:
    """Running observation mean/variance (merged batch by batch, Chan et al.)."""

    mean: jax.Array
    var: jax.Array
    count: jax.Array


def normalizer_start(obs_batch, normalize_obs=True):
    """The statistics of a first batch, or mean 0 and variance 1 with `normalize_obs` off; None for no observation."""
    if obs_batch is None:
        return None
    if not normalize_obs:
        return Normalizer(jnp.zeros(obs_batch.shape[-1]), jnp.ones(obs_batch.shape[-1]), jnp.zeros(()))
    return Normalizer(obs_batch.mean(0), obs_batch.var(0), jnp.array(obs_batch.shape[0], jnp.float32))


def normalizer_update(norm, obs_batch):
    """`norm` merged with a batch's mean and variance; None (no critic observation) stays None."""
    if obs_batch is None:
        return norm
    batch_mean, batch_var, batch_count = obs_batch.mean(0), obs_batch.var(0), obs_batch.shape[0]
    total = norm.count + batch_count
    delta = batch_mean - norm.mean
    mean = norm.mean + delta * batch_count / total
    m2 = norm.var * norm.count + batch_var * batch_count + jnp.square(delta) * norm.count * batch_count / total
    return Normalizer(mean, m2 / total, total)


def critic_observation(state, final=False):
    """The state's critic observation (`final`: before any auto-reset); None where the critic reads `obs`."""
    return getattr(state, "final_critic_obs" if final else "critic_obs", None)


def normalize(norm, obs):
    """`obs` standardized by `norm` and clipped; None (no critic observation) stays None."""
    if obs is None:
        return None
    return jnp.clip((obs - norm.mean) / jnp.sqrt(norm.var + 1e-8), -10.0, 10.0)


def gae_advantages(rewards, values, next_values, terminated, truncated, gamma, gae_lambda):
    """GAE over a [time, env] rollout -> (advantages, value targets). `next_values[t]` is V(obs after step t, before
    any reset): it bootstraps truncation, not termination; the recursion stops at every episode end."""
    deltas = rewards + gamma * next_values * (1.0 - terminated) - values
    done = jnp.logical_or(terminated, truncated).astype(jnp.float32)

    def _gae_step(gae, delta_done):
        delta, done_t = delta_done
        gae = delta + gamma * gae_lambda * (1.0 - done_t) * gae
        return gae, gae

    _, advantages = jax.lax.scan(_gae_step, jnp.zeros_like(values[0]), (deltas, done), reverse=True)
    return advantages, advantages + values


@struct.dataclass
class Batch:
    """Training samples of one update (or one minibatch), flat over time and envs."""

    obs: jax.Array  # normalized observation the action was taken in
    critic_obs: Any  # normalized critic observation of that step (None: the critic reads `obs`)
    action: jax.Array
    carried_noise: jax.Array  # exploration noise carried over from the step before (see exploring_gaussian)
    log_prob: jax.Array  # under the policy that collected the rollout
    value: jax.Array  # V(obs) when collected
    advantage: jax.Array
    target: jax.Array  # value target: advantage + value
    mirrored_obs: Any = None  # with the symmetry loss alone: the normalized mirror image of `obs`
    weight: Any = None  # importance weight of a sample drawn off the policy its ratio starts from (None: 1)


def ppo_loss(params, apply_fn, batch, hparams, noise_correlation=0.0, reflect=None, symmetry_loss=0.0):
    """PPO's clipped surrogate (each sample's weighted by `batch.weight`, if any), clipped value loss and entropy bonus
    on a minibatch, advantages normalized within it. With `reflect` (an action's mirror image) also `symmetry_loss`
    times the mean squared gap between the mean action of each sample's mirror image (`mirrored_obs`, or where None the
    sample after it) and the mirror image of its mean action. Returns (total, {actor_loss, value_loss, ...})."""
    mean, log_std, value = apply_fn(params, batch.obs, batch.critic_obs)
    pi = exploring_gaussian(mean, log_std, batch.carried_noise, noise_correlation)
    value_clipped = batch.value + jnp.clip(value - batch.value, -hparams["clip_eps"], hparams["clip_eps"])
    value_loss = 0.5 * jnp.maximum(jnp.square(value - batch.target), jnp.square(value_clipped - batch.target)).mean()
    log_ratio = pi.log_prob(batch.action) - batch.log_prob
    ratio = jnp.exp(log_ratio)
    advantage = (batch.advantage - batch.advantage.mean()) / (batch.advantage.std() + 1e-8)
    surrogate = -jnp.minimum(
        ratio * advantage, jnp.clip(ratio, 1.0 - hparams["clip_eps"], 1.0 + hparams["clip_eps"]) * advantage)
    # an off-policy sample's surrogate counts by its weight; the KL and clip fraction are means under the policy
    actor_loss = surrogate.mean() if batch.weight is None else (batch.weight * surrogate).mean()
    share = lambda x: x.mean() if batch.weight is None else (batch.weight * x).sum() / batch.weight.sum()
    clipped = jnp.abs(ratio - 1.0) > hparams["clip_eps"]
    entropy = pi.entropy().mean()
    total = actor_loss + hparams["vf_coef"] * value_loss - hparams["ent_coef"] * entropy
    losses = dict(actor_loss=actor_loss, value_loss=value_loss, entropy=entropy,
                  approx_kl=share(ratio - 1.0 - log_ratio), clip_fraction=share(clipped))
    if batch.weight is not None:
        losses["importance_weight"] = batch.weight.mean()
    if reflect is not None:  # the mean action of the mirror image against the mirror image of the mean action
        pairs = batch.mirrored_obs is None  # augmented: each pair's second sample is its first's mirror image
        mirrored_mean = mean[1::2] if pairs else apply_fn(params, batch.mirrored_obs, None, value=False)[0]
        losses["mirror_gap"] = jnp.square(mirrored_mean - reflect(mean[0::2] if pairs else mean)).mean()
        total = total + symmetry_loss * losses["mirror_gap"]
    return total, losses


# `train` reads these and the env's params from `hparams` as traced float32 arrays, so members of one vmapped program
# may differ in them; every other config key fixes shapes or structure and is read from `config` at build time.
HYPERPARAMETERS = ("lr", "ent_coef", "clip_eps", "vf_coef", "max_grad_norm", "gamma", "gae_lambda")


def hyperparameters(config, env_params):
    """`hparams`: `config`'s traced hyperparameters, with `env_params` (e.g. `env.default_params`) for `env.step`."""
    return dict({k: jnp.float32(config[k]) for k in HYPERPARAMETERS}, env_params=env_params)


def stack(trees):
    """Pytrees of equal structure -> one pytree with a leading member axis (e.g. hyperparameters to vmap over)."""
    return jax.tree.map(lambda *xs: jnp.stack(xs), *trees)


def make_optimizer(config, hparams, num_optimizer_steps):
    """Adam after global-norm clipping, from the traced `hparams`: the learning rate starts at `lr` and adapts in the
    optimizer's state with `desired_kl` > 0, or with `anneal_lr` decays linearly to 0. Stateless: built where used."""
    if config["desired_kl"] > 0:
        adam = optax.inject_hyperparams(optax.adam)(learning_rate=hparams["lr"], eps=1e-5)
    else:
        lr = optax.linear_schedule(hparams["lr"], 0.0, num_optimizer_steps) if config["anneal_lr"] else hparams["lr"]
        adam = optax.adam(lr, eps=1e-5)
    return optax.chain(optax.clip_by_global_norm(hparams["max_grad_norm"]), adam)


def adapted_learning_rate(opt_state, kl, desired_kl):
    """rsl_rl's adaptive schedule (legged_gym, Isaac Lab, mjlab): the next step's learning rate from a minibatch's
    `approx_kl` (rsl_rl: the closed-form KL), /1.5 over twice `desired_kl`, x1.5 under half of it, within [1e-5, 1e-2].
    Returns (the optimizer state with that rate, the rate)."""
    clip_state, adam_state = opt_state
    lr = adam_state.hyperparams["learning_rate"]
    lr = jnp.where(kl > 2.0 * desired_kl, jnp.maximum(1e-5, lr / 1.5), lr)
    lr = jnp.where((kl < 0.5 * desired_kl) & (kl > 0.0), jnp.minimum(1e-2, lr * 1.5), lr)
    return (clip_state, adam_state._replace(hyperparams=dict(adam_state.hyperparams, learning_rate=lr))), lr


@struct.dataclass
class TrainState:
    params: Any  # the network's parameters
    opt_state: Any  # the optimizer's moments and step count


@struct.dataclass
class Transition:
    obs: jax.Array  # raw observation the action was taken in
    critic_obs: Any  # raw critic observation (None: the critic reads `obs`)
    action: jax.Array
    carried_noise: jax.Array
    log_prob: jax.Array
    value: jax.Array
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    final_obs: jax.Array  # raw observation after the step, before any auto-reset
    final_critic_obs: Any  # raw critic observation after the step, before any auto-reset (or None)
    finished_return: jax.Array  # return of the episode that ended at this step (0 where none ended)
    finished_length: jax.Array
    info: dict


@struct.dataclass
class Runner:
    train_state: TrainState
    normalizer: Normalizer
    critic_normalizer: Any  # the critic observation's Normalizer; None without one
    env_state: Any  # the env's batched state
    episode_return: jax.Array  # running return of each env's current episode
    episode_length: jax.Array
    action_noise: jax.Array  # each env's standardized exploration noise at its last step (see exploring_gaussian)
    rng: jax.Array
    update: jax.Array  # updates done so far


def normalized(runner, obs, critic_obs):
    """The network's inputs: the policy's observation and the critic's own (or None), each by its own statistics."""
    return normalize(runner.normalizer, obs), normalize(runner.critic_normalizer, critic_obs)


def check_config(config):
    """ValueError for settings the trainer cannot run."""
    batch = config["num_envs"] * config["num_steps"]
    if batch % config["num_minibatches"]:
        raise ValueError(f"num_envs * num_steps = {batch} is not divisible by num_minibatches = "
                         f"{config['num_minibatches']}")
    if config["total_timesteps"] < batch:
        raise ValueError(f"total_timesteps = {config['total_timesteps']} is less than one batch "
                         f"(num_envs * num_steps = {batch})")
    if config["desired_kl"] > 0 and config["anneal_lr"]:
        raise ValueError(f"desired_kl = {config['desired_kl']} adapts the learning rate, which anneal_lr = True would "
                         f"decay: set anneal_lr=False")
    if config["desired_kl"] < 0:
        raise ValueError(f"desired_kl = {config['desired_kl']} is negative (0: no adaptive learning rate)")
    if config.get("symmetry_loss", 0.0) < 0:
        raise ValueError(f"symmetry_loss = {config['symmetry_loss']} is negative (0: the policy's asymmetry is free)")
    if config.get("symmetry_ratio_from_image") and not config.get("symmetry_augmentation"):
        raise ValueError("symmetry_ratio_from_image sets the ratios of mirror images: symmetry_augmentation=True")
    if config.get("symmetry_augmentation") and config["privileged_critic"]:
        raise ValueError("symmetry_augmentation reflects the policy's observation alone: privileged_critic=False")
    if not 0.0 <= config["action_noise_correlation"] < 1.0:
        raise ValueError(f"action_noise_correlation = {config['action_noise_correlation']} is not in [0, 1)")


@dataclass(frozen=True)
class Trainer:
    """PPO in two pure pieces: `init(rng, hparams) -> Runner`, `run_updates(runner, hparams, n) -> (runner,
    per-update metrics)`."""

    init: Callable
    run_updates: Callable
    num_updates: int


def make_trainer(config, env):
    """PPO for `env` as a Trainer; every setting comes from `config` (see configs/ppo.py)."""
    check_config(config)
    num_envs, num_steps = config["num_envs"], config["num_steps"]
    batch_size = num_envs * num_steps
    augment, mirror_loss = config.get("symmetry_augmentation", False), config.get("symmetry_loss", 0.0)
    mirror = getattr(env, "mirror", None) if augment or mirror_loss else None  # check_config refused a negative loss
    if (augment or mirror_loss) and mirror is None:
        raise ValueError("symmetry_augmentation and symmetry_loss need an env with a `mirror` (envs.py builds one for "
                         "its bodies)")
    reflect = None if mirror is None else lambda a: a[..., mirror.action_index] * mirror.action_sign
    samples = batch_size * (2 if augment else 1)  # each transition and, with augmentation, its mirror image
    minibatch_size = samples // config["num_minibatches"]
    num_updates = config["total_timesteps"] // batch_size
    num_optimizer_steps = num_updates * config["update_epochs"] * config["num_minibatches"]
    noise_correlation = config["action_noise_correlation"]
    network = make_network(config, env.action_size)
    flat = functools.partial(jax.tree.map, lambda x: x.reshape((batch_size,) + x.shape[2:]))  # [time, env] -> [batch]

    def init(rng, hparams):
        rng, init_key, reset_key = jax.random.split(rng, 3)
        env_state = jax.vmap(env.reset)(jax.random.split(reset_key, num_envs))
        params = network.init(init_key, jnp.zeros(env.observation_size), critic_observation(env_state))  # shapes only
        train_state = TrainState(params, make_optimizer(config, hparams, num_optimizer_steps).init(params))
        normalizer = normalizer_start(env_state.obs, config["normalize_obs"])
        critic_normalizer = normalizer_start(critic_observation(env_state), config["normalize_obs"])
        zeros = jnp.zeros(num_envs)
        return Runner(train_state, normalizer, critic_normalizer, env_state, zeros, zeros,
                      jnp.zeros((num_envs, env.action_size)), rng, jnp.zeros((), jnp.int32))

    def _update_step(hparams, runner, _):
        def _env_step(runner, _):
            rng, action_key = jax.random.split(runner.rng)
            critic_obs = critic_observation(runner.env_state)
            mean, log_std, value = network.apply(runner.train_state.params,
                                                 *normalized(runner, runner.env_state.obs, critic_obs))
            carried_noise = noise_correlation * runner.action_noise
            pi = exploring_gaussian(mean, log_std, carried_noise, noise_correlation)
            action = pi.sample(seed=action_key)
            env_state = jax.vmap(env.step, in_axes=(0, 0, None))(runner.env_state, action, hparams["env_params"])
            done = env_state.terminated | env_state.truncated
            episode_return = runner.episode_return + env_state.reward
            episode_length = runner.episode_length + 1
            transition = Transition(
                runner.env_state.obs, critic_obs, action, carried_noise, pi.log_prob(action), value, env_state.reward,
                env_state.terminated, env_state.truncated, env_state.final_obs, critic_observation(env_state, True),
                jnp.where(done, episode_return, 0.0), jnp.where(done, episode_length, 0.0), env_state.info)
            runner = runner.replace(env_state=env_state, episode_return=jnp.where(done, 0.0, episode_return),
                                    episode_length=jnp.where(done, 0.0, episode_length),
                                    action_noise=(action - mean) / jnp.exp(log_std), rng=rng)
            return runner, transition

        runner, traj = jax.lax.scan(_env_step, runner, None, num_steps)

        def _calculate_gae(traj):
            _, _, next_values = network.apply(runner.train_state.params,
                                              *normalized(runner, traj.final_obs, traj.final_critic_obs))
            return gae_advantages(traj.reward, traj.value, next_values, traj.terminated, traj.truncated,
                                  hparams["gamma"], hparams["gae_lambda"])

        def _mirror_images(batch, mirrored_obs):
            """Each sample's mirror image (the reflected body's action has the same density, advantage and return):
            for the loss alone `mirrored_obs`; augmented, a sample beside its own, so a pair shares a minibatch."""
            images = flat(normalize(runner.normalizer, mirrored_obs))
            if not augment:
                return batch.replace(mirrored_obs=images)
            mirrored = batch.replace(obs=images, action=reflect(batch.action),
                                     carried_noise=reflect(batch.carried_noise))
            if config.get("symmetry_ratio_from_image"):  # decoupled PPO: the image's ratio starts at 1, at the rollout
                # policy's density at the image, weighted by that over its sample's, truncated at 1
                image_mean, log_std, _ = network.apply(runner.train_state.params, images, None, value=False)
                image_log_prob = exploring_gaussian(image_mean, log_std, mirrored.carried_noise,
                                                    noise_correlation).log_prob(mirrored.action)
                mirrored = mirrored.replace(log_prob=image_log_prob,
                                            weight=jnp.minimum(1.0, jnp.exp(image_log_prob - batch.log_prob)))
                batch = batch.replace(weight=jnp.ones_like(batch.log_prob))
            return jax.tree.map(lambda a, b: jnp.stack([a, b], axis=1), batch, mirrored)

        advantages, targets = _calculate_gae(traj)
        batch = flat(Batch(*normalized(runner, traj.obs, traj.critic_obs), traj.action, traj.carried_noise,
                           traj.log_prob, traj.value, advantages, targets))
        if mirror is not None:
            mirrored_obs = traj.obs[..., mirror.obs_index] * mirror.obs_sign
            batch = _mirror_images(batch, mirrored_obs)
        tx = make_optimizer(config, hparams, num_optimizer_steps)

        def _update_epoch(carry, _):
            train_state, rng = carry
            rng, perm_key = jax.random.split(rng)
            permutation = jax.random.permutation(perm_key, batch_size)  # of samples, or of pairs when augmented
            minibatches = jax.tree.map(lambda x: x[permutation].reshape(
                (config["num_minibatches"], minibatch_size) + x.shape[2 if augment else 1:]), batch)

            def _update_minibatch(train_state, minibatch):
                grads, losses = jax.grad(ppo_loss, has_aux=True)(train_state.params, network.apply, minibatch,
                                                                 hparams, noise_correlation, reflect, mirror_loss)
                losses["grad_norm"] = optax.tree.norm(grads)
                opt_state = train_state.opt_state
                if config["desired_kl"] > 0:
                    opt_state, losses["learning_rate"] = adapted_learning_rate(opt_state, losses["approx_kl"],
                                                                               config["desired_kl"])
                updates, opt_state = tx.update(grads, opt_state, train_state.params)
                return TrainState(optax.apply_updates(train_state.params, updates), opt_state), losses

            train_state, losses = jax.lax.scan(_update_minibatch, train_state, minibatches)
            return (train_state, rng), losses

        (train_state, rng), losses = jax.lax.scan(_update_epoch, (runner.train_state, runner.rng), None,
                                                  config["update_epochs"])
        # Statistics change only after the update, so the update sees the same normalization as the rollout.
        runner = runner.replace(train_state=train_state, rng=rng)
        if config["normalize_obs"]:
            critic_normalizer = normalizer_update(runner.critic_normalizer, flat(traj.critic_obs))
            seen = jnp.concatenate([flat(traj.obs), flat(mirrored_obs)]) if augment else flat(traj.obs)
            runner = runner.replace(normalizer=normalizer_update(runner.normalizer, seen),
                                    critic_normalizer=critic_normalizer)
        metrics = update_metrics(traj, losses, targets, runner.update, batch_size)
        return runner.replace(update=runner.update + 1), metrics

    def run_updates(runner, hparams, num):
        return jax.lax.scan(functools.partial(_update_step, hparams), runner, None, num)

    return Trainer(init, run_updates, num_updates)


def make_train(config, env):
    """`train(rng, hparams=None)` -> {"runner": final state, "metrics": per-update scalars}, one jittable function.
    `hparams` (default: the config's and `env.default_params`) may be traced: `jax.vmap(train)(keys, hparams)` runs
    seeds and hyperparameter settings as one program."""
    trainer = make_trainer(config, env)

    def train(rng, hparams=None):
        hparams = hyperparameters(config, env.default_params) if hparams is None else hparams
        runner, metrics = trainer.run_updates(trainer.init(rng, hparams), hparams, trainer.num_updates)
        return {"runner": runner, "metrics": metrics}

    return train


def update_metrics(traj, losses, targets, update, batch_size):
    """Per-update scalars: episodes ended in the rollout, rewards, the value fit, the means of the env's `info` (an
    optional `nan_reset` counted) and of the losses."""
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
    if "nan_reset" in traj.info:  # optional: envs that restart non-finite physics say so
        metrics["nan_resets"] = traj.info["nan_reset"].sum()
    metrics |= {k: v.mean() for k, v in losses.items()}
    return metrics


def policy_mean(config, action_size, params, normalizer):
    """obs -> the Gaussian's mean clipped to [-1, 1]: the deterministic policy a user deploys (export.py's ONNX)."""
    network = make_network(config, action_size)
    return lambda obs: jnp.clip(network.apply(params, normalize(normalizer, obs), value=False)[0], -1.0, 1.0)


def evaluation_policy(config, action_size, params, normalizer, mean=False):
    """(obs, key) -> action sampled from the Gaussian (white noise), or with `mean` its mean, what a user deploys."""
    network = make_network(config, action_size)

    def policy(obs, key):
        action_mean, log_std, _ = network.apply(params, normalize(normalizer, obs), value=False)
        return action_mean if mean else gaussian(action_mean, log_std).sample(seed=key)

    return policy


if __name__ == "__main__":
    import cli  # the command line: runs, groups, curricula, checkpoints

    cli.main()
