"""The learner's pieces against simple references, and PPO learning a small MJX task."""

import functools
import math
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from flax import struct

import evaluation
import ppo_mjx
import runs
from cartpole import CONFIG, make_cartpole_env, make_plain_cartpole
from conftest import XLA_DEFAULTS


def gae_reference(rewards, values, next_values, terminated, truncated, gamma, lam):
    """Per env and step, the advantage summed explicitly over the rest of its episode:
    A_t = sum_l (gamma lam)^l delta_{t+l}, delta_t = r_t + gamma V(next_t) [0 if terminated] - V(s_t)."""
    T, N = rewards.shape
    adv = np.zeros((T, N))
    for n in range(N):
        for t in range(T):
            for k in range(t, T):
                bootstrap = 0.0 if terminated[k, n] else next_values[k, n]
                delta = rewards[k, n] + gamma * bootstrap - values[k, n]
                adv[t, n] += (gamma * lam) ** (k - t) * delta
                if terminated[k, n] or truncated[k, n]:
                    break
    return adv


def test_gae_matches_reference_through_truncation_and_termination():
    rng = np.random.default_rng(0)
    T, N = 7, 3
    rewards, values, next_values = (rng.normal(size=(T, N)) for _ in range(3))
    terminated = np.zeros((T, N), bool)
    truncated = np.zeros((T, N), bool)
    truncated[2, 0] = True  # env 0: time limit at step 2, then a fall at step 5
    terminated[5, 0] = True
    terminated[3, 1] = True  # env 1: a fall at step 3; env 2 runs on
    gamma, lam = 0.97, 0.9
    adv, targets = ppo_mjx.gae_advantages(*map(jnp.asarray, (rewards, values, next_values, terminated, truncated)),
                                          gamma, lam)
    expected = gae_reference(rewards, values, next_values, terminated, truncated, gamma, lam)
    np.testing.assert_allclose(adv, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(targets, expected + values, rtol=1e-5, atol=1e-5)
    # By hand: truncation bootstraps from V(final obs); termination does not bootstrap at all.
    assert adv[2, 0] == pytest.approx(rewards[2, 0] + gamma * next_values[2, 0] - values[2, 0], abs=1e-5)
    assert adv[5, 0] == pytest.approx(rewards[5, 0] - values[5, 0], abs=1e-5)


def test_log_prob_and_entropy_match_hand_computed_gaussian():
    network = ppo_mjx.ActorCritic(action_size=3, actor_hidden=(8,), critic_hidden=(8,), init_log_std=-0.3)
    obs = jnp.array([0.5, -1.0, 2.0, 0.1])
    params = network.init(jax.random.key(0), obs)
    mean, log_std, value = network.apply(params, obs)
    pi = ppo_mjx.gaussian(mean, log_std)
    mean = np.asarray(mean)
    std = np.exp(np.asarray(params["params"]["log_std"]))
    action = np.array([0.3, -0.7, 1.5])
    expected = sum(-0.5 * ((a - m) / s) ** 2 - math.log(s) - 0.5 * math.log(2 * math.pi)
                   for a, m, s in zip(action, mean, std))
    assert float(pi.log_prob(action)) == pytest.approx(expected, rel=1e-5)
    assert float(pi.entropy()) == pytest.approx(sum(0.5 * math.log(2 * math.pi * math.e * s**2) for s in std),
                                                rel=1e-5)
    assert value.shape == ()


def test_normalizer_matches_numpy_mean_and_var():
    rng = np.random.default_rng(1)
    batches = [rng.normal(3.0, 2.0, size=(n, 4)) * [1, 10, 0.1, 1] for n in (5, 17, 64)]
    norm = ppo_mjx.normalizer_start(jnp.asarray(batches[0]))
    for batch in batches[1:]:
        norm = ppo_mjx.normalizer_update(norm, jnp.asarray(batch))
    data = np.concatenate(batches)
    np.testing.assert_allclose(norm.mean, data.mean(0), rtol=1e-4)
    np.testing.assert_allclose(norm.var, data.var(0), rtol=1e-4)
    assert float(norm.count) == len(data)
    normalized = ppo_mjx.normalize(norm, jnp.asarray(data))
    np.testing.assert_allclose(normalized.mean(0), 0.0, atol=1e-4)
    np.testing.assert_allclose(normalized.std(0), 1.0, atol=1e-3)


def test_batch_not_divisible_by_minibatches_is_refused():
    with pytest.raises(ValueError, match="not divisible"):
        ppo_mjx.check_config(dict(CONFIG, num_envs=10, num_steps=3, num_minibatches=4))


@pytest.mark.parametrize("correlation", [-0.1, 1.0])
def test_exploration_noise_correlation_outside_0_to_1_is_refused(correlation):
    with pytest.raises(ValueError, match=r"not in \[0, 1\)"):
        ppo_mjx.check_config(dict(CONFIG, action_noise_correlation=correlation))


@struct.dataclass
class ProbeState:
    obs: jax.Array
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    final_obs: jax.Array
    action: jax.Array  # the action of the step before
    info: dict


def noise_probe(action_size=4):
    """A plain-JAX env that observes nothing (zeros, so an untrained policy's mean is exactly 0) and reports, per step,
    the mean square of the action it got and its mean product with the action of the step before."""

    def reset(key):
        zero, false = jnp.zeros(()), jnp.zeros((), bool)
        return ProbeState(jnp.zeros(1), zero, false, false, jnp.zeros(1), jnp.zeros(action_size),
                          dict(action_square=zero, action_lag_product=zero))

    def step(state, action, params):
        info = dict(action_square=jnp.mean(action**2), action_lag_product=jnp.mean(action * state.action))
        return state.replace(action=action, info=info)

    return SimpleNamespace(observation_size=1, action_size=action_size, reset=reset, step=step, default_params={})


@pytest.mark.parametrize("correlation", [0.0, 0.9])
def test_exploration_noise_has_unit_variance_and_the_configured_correlation_in_the_rollout(correlation):
    """The trainer's rollout actions (an untrained policy: mean 0, std 1, learning rate 0 so nothing changes) have
    variance 1 at every step and lag-1 correlation `action_noise_correlation` across steps and updates (an AR(1)
    process in its stationary law); 0 is white noise."""
    config = dict(CONFIG, num_envs=1024, num_steps=16, total_timesteps=1024 * 16 * 4, num_minibatches=1,
                  lr=0.0, anneal_lr=False, normalize_obs=False, init_log_std=0.0,
                  action_noise_correlation=correlation)
    train, key = ppo_mjx.make_train(config, noise_probe()), jax.random.key(0)
    metrics = jax.jit(train)(key)["metrics"]
    # the first update starts from no noise (its variance builds up); later updates carry it on
    np.testing.assert_allclose(metrics["action_square"][1:], 1.0, atol=0.06)
    np.testing.assert_allclose(metrics["action_lag_product"][1:], correlation, atol=0.06)


def random_policy_returns(env, episodes, key):
    """Return of each env's first episode under uniform random actions."""
    step = jax.vmap(env.step)

    def body(carry, key):
        state, ended, total = carry
        state = step(state, jax.random.uniform(key, (episodes, env.action_size), minval=-1, maxval=1))
        total = total + jnp.where(ended, 0.0, state.reward)
        return (state, ended | state.terminated | state.truncated, total), None

    @jax.jit
    def rollout(key):
        state = jax.vmap(env.reset)(jax.random.split(key, episodes))
        carry = (state, jnp.zeros(episodes, bool), jnp.zeros(episodes))
        (_, _, total), _ = jax.lax.scan(body, carry, jax.random.split(key, env.config["episode_length"]))
        return total

    return np.asarray(rollout(key))


def test_ppo_learns_cartpole_beyond_any_random_episode():
    """Two runs side by side in one program, `jax.vmap(train)(keys, hparams)`, with different seeds and learning
    rates: both learn. (tests/test_sweeps.py checks that vmapped runs equal their separate runs.)"""
    env = make_cartpole_env()
    random_best = random_policy_returns(env, 256, jax.random.key(1)).max()
    hparams = ppo_mjx.stack([ppo_mjx.hyperparameters(c, env.default_params) for c in (CONFIG, dict(CONFIG, lr=1e-3))])
    train = ppo_mjx.make_train(CONFIG, env)
    keys = jax.random.split(jax.random.key(0), 2)
    # Compiled as users' runs are (XLA's defaults, not the suite's quick compile, tests/conftest.py): this program runs
    # long enough that the optimizations save more time than they cost.
    out = jax.jit(jax.vmap(train)).lower(keys, hparams).compile(compiler_options=XLA_DEFAULTS)(keys, hparams)
    runner, metrics = out["runner"], out["metrics"]
    assert metrics["episode_return"].shape == (2, CONFIG["total_timesteps"] // (64 * 32))  # per-update scalars only
    assert int(metrics["nan_resets"].sum()) == 0

    def evaluate(params, normalizer):
        policy = ppo_mjx.evaluation_policy(CONFIG, env.action_size, params, normalizer, mean=True)
        return evaluation.evaluation_rollout(env, policy, jax.random.key(2), 32)[0]["episode_return"]

    returns = np.asarray(jax.jit(jax.vmap(evaluate))(runner.train_state.params, runner.normalizer))
    # Every deterministic episode beats the best of 256 random ones (random: ~20 on average, ~100 at best).
    assert returns.min() > random_best, (returns, random_best)
    assert returns.mean(1).min() >= 150.0, returns.mean(1)


def gaussian_policy(params, obs, critic_obs=None):
    """A stand-in for the network: every observation gets the same Gaussian and value, set by `params`."""
    batch = obs.shape[0]
    return (jnp.broadcast_to(params["mean"], (batch, 2)), jnp.broadcast_to(params["log_std"], (batch, 2)),
            jnp.broadcast_to(params["value"], (batch,)))


def test_evaluation_samples_actions_repeatably_and_apart_from_the_envs_randomness():
    """The evaluated policy samples from its Gaussian with keys of the evaluation's own (the same key repeats the same
    episodes exactly), and the starts do not depend on the policy; `mean` acts with the Gaussian's mean."""
    env = make_cartpole_env()
    network = ppo_mjx.make_network(CONFIG, env.action_size)
    params = network.init(jax.random.key(0), jnp.zeros(env.observation_size))
    normalizer = ppo_mjx.normalizer_start(jnp.zeros((2, env.observation_size)))

    def rollout(policy, key):
        result, poses = evaluation.evaluation_rollout(env, policy, key, 8)
        return result["episode_return"], poses[0]

    run = jax.jit(lambda key, mean: rollout(ppo_mjx.evaluation_policy(CONFIG, env.action_size, params, normalizer,
                                                                       mean), key), static_argnums=1)
    key = jax.random.key(5)
    (sampled, starts), (again, _), (mean, mean_starts) = run(key, False), run(key, False), run(key, True)
    _, zero_starts = jax.jit(lambda key: rollout(evaluation.zero_policy(env), key))(key)
    np.testing.assert_array_equal(sampled, again)
    assert not np.allclose(sampled, mean)  # the noise (std 1 at init) changes the episodes
    np.testing.assert_array_equal(starts, mean_starts)
    np.testing.assert_array_equal(starts, zero_starts)
    obs = jnp.zeros((3, env.observation_size))
    act = ppo_mjx.evaluation_policy(CONFIG, env.action_size, params, normalizer, mean=True)
    mean, _, _ = network.apply(params, ppo_mjx.normalize(normalizer, obs))
    np.testing.assert_array_equal(act(obs, jax.random.key(1)), mean)
    np.testing.assert_array_equal(ppo_mjx.policy_mean(CONFIG, env.action_size, params, normalizer)(obs),
                                  np.clip(mean, -1, 1))


@pytest.mark.parametrize("time_limit", [15, 200])
def test_evaluation_matches_a_step_by_step_reference_and_stops_once_every_episode_has_ended(time_limit):
    """Each env's first episode, stepped one call at a time in Python for the whole time limit (the policy's key at
    step t is the t-th of its split), gives the rollout's returns, lengths, time-limit flags, last and mean measures
    and poses; and the rollout records no step after the last episode ended. At 15 steps some episodes reach the
    limit and some fall; at 200 every one falls well before it."""
    env = make_cartpole_env(dict(CONFIG, episode_length=time_limit))
    policy = lambda obs, key: 0.7 * jax.random.normal(key, obs.shape[:-1] + (env.action_size,))
    key, n = jax.random.key(4), 12
    episodes, poses = jax.jit(lambda key: evaluation.evaluation_rollout(env, policy, key, n))(key)

    step = jax.jit(jax.vmap(env.step, in_axes=(0, 0, None)))
    state = jax.jit(jax.vmap(env.reset))(jax.random.split(key, n))
    policy_keys = jax.random.split(jax.random.fold_in(key, 1), time_limit)
    ret, length, limit, angle, angle_sum = (np.zeros(n) for _ in range(5))
    ended, ref_poses = np.zeros(n, bool), []
    for t in range(time_limit):
        ref_poses.append(np.concatenate([state.data.qpos, state.data.mocap_pos.reshape(n, -1), state.data.userdata],
                                        axis=-1))
        state = step(state, policy(state.obs, policy_keys[t]), env.default_params)
        live = ~ended
        ends_now = live & np.asarray(state.terminated | state.truncated)
        ret += np.where(live, state.reward, 0.0)
        length += live
        angle_sum += np.where(live, state.info["pole_angle"], 0.0)
        limit = np.where(ends_now, state.truncated, limit)
        angle = np.where(ends_now, state.info["pole_angle"], angle)
        ended |= ends_now
    lengths = length.astype(int)
    assert ended.all() and (0 < limit.sum() < n if time_limit == 15 else lengths.max() < time_limit)
    np.testing.assert_allclose(episodes["episode_return"], ret, rtol=1e-5)
    np.testing.assert_array_equal(episodes["episode_length"], length)
    np.testing.assert_array_equal(episodes["reached_time_limit"], limit.astype(bool))
    np.testing.assert_allclose(episodes["pole_angle"], angle, rtol=1e-5)
    np.testing.assert_allclose(episodes["pole_angle_mean"], angle_sum / length, rtol=1e-5)
    for i in range(n):
        np.testing.assert_allclose(poses[: lengths[i], i], np.array(ref_poses)[: lengths[i], i], rtol=1e-5, atol=1e-7)
    assert not np.asarray(poses[lengths.max():]).any()


@pytest.mark.parametrize("correlation", [0.0, 0.6])
def test_ppo_loss_matches_a_numpy_reference(correlation):
    """A hand-made minibatch in which some ratios are clipped, some value predictions are clipped, and the
    advantages need normalizing; every part of the loss against numpy. With correlated exploration noise the policy
    is the Gaussian given the noise carried over: centred on mean + std * carried, with std * sqrt(1 - correlation^2).
    """
    params = dict(mean=jnp.array([0.3, -0.2]), log_std=jnp.array([-0.5, 0.1]), value=jnp.array(1.0))
    action = np.array([[0.0, 0.0], [0.5, -0.5], [1.0, 0.2], [-0.4, 0.3], [0.3, -0.2]], np.float32)
    carried = correlation * np.array([[0.5, -1.0], [0.0, 2.0], [-1.5, 0.3], [1.0, 1.0], [0.2, -0.4]], np.float32)
    std = np.exp([-0.5, 0.1])
    mean = np.array([0.3, -0.2]) + std * carried
    std = std * np.sqrt(1.0 - correlation**2)
    new_log_prob = (-0.5 * ((action - mean) / std) ** 2 - np.log(std) - 0.5 * np.log(2 * np.pi)).sum(1)
    old_log_prob = new_log_prob - np.array([0.5, -0.5, 0.05, -0.05, 0.0])  # ratios e^0.5, e^-0.5, ~1.05, ~0.95, 1
    old_value = np.array([1.5, 0.9, 0.0, 1.1, 1.0], np.float32)  # new value 1.0: clipped where |1 - old| > eps
    advantage = np.array([2.0, -1.0, 0.5, 3.0, -4.0], np.float32)
    target = np.array([0.0, 2.0, 1.0, -1.0, 1.5], np.float32)
    batch = ppo_mjx.Batch(jnp.zeros((5, 3)), None, jnp.asarray(action), jnp.asarray(carried),
                          jnp.asarray(old_log_prob, jnp.float32), jnp.asarray(old_value), jnp.asarray(advantage),
                          jnp.asarray(target))
    hparams = dict(clip_eps=0.2, vf_coef=0.5, ent_coef=0.01)
    total, parts = ppo_mjx.ppo_loss(params, gaussian_policy, batch, hparams, correlation)

    ratio = np.exp(new_log_prob - old_log_prob)
    adv = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    actor = -np.minimum(ratio * adv, np.clip(ratio, 0.8, 1.2) * adv).mean()
    clipped_value = old_value + np.clip(1.0 - old_value, -0.2, 0.2)
    value_loss = 0.5 * np.maximum((1.0 - target) ** 2, (clipped_value - target) ** 2).mean()
    entropy = (0.5 * np.log(2 * np.pi * np.e * std**2)).sum()
    expected = dict(actor_loss=actor, value_loss=value_loss, entropy=entropy,
                    approx_kl=((ratio - 1) - np.log(ratio)).mean(), clip_fraction=(np.abs(ratio - 1) > 0.2).mean())
    for name, value in expected.items():
        assert float(parts[name]) == pytest.approx(value, rel=1e-5, abs=1e-6), name
    assert parts["clip_fraction"] == pytest.approx(0.4)  # the e^0.5 and e^-0.5 ratios
    assert float(total) == pytest.approx(actor + 0.5 * value_loss - 0.01 * entropy, rel=1e-5)


def test_update_metrics_against_hand_counted_values():
    T, N = 3, 2
    terminated = np.array([[0, 1], [0, 0], [0, 0]], bool)
    truncated = np.array([[0, 0], [0, 0], [1, 0]], bool)
    finished_return = np.where(terminated | truncated, [[0, 5.0], [0, 0], [11.0, 0]], 0.0)
    finished_length = np.where(terminated | truncated, [[0, 4.0], [0, 0], [20.0, 0]], 0.0)
    reward = np.arange(6, dtype=np.float32).reshape(T, N)
    value = np.array([[1.0, 2.0], [0.5, 0.0], [1.0, 1.0]], np.float32)
    targets = np.array([[1.5, 2.0], [0.0, 1.0], [2.0, 1.0]], np.float32)
    info = {"reward/upright": reward * 2, "pelvis_height": np.full((T, N), 0.9), "nan_reset": truncated * 1.0}
    zeros = jnp.zeros((T, N))
    traj = ppo_mjx.Transition(zeros, None, zeros, zeros, zeros, jnp.asarray(value), jnp.asarray(reward),
                              jnp.asarray(terminated), jnp.asarray(truncated), zeros, None,
                              jnp.asarray(finished_return), jnp.asarray(finished_length),
                              {k: jnp.asarray(v) for k, v in info.items()})
    losses = {"actor_loss": jnp.array([[1.0, 3.0]]), "approx_kl": jnp.array([[0.1, 0.3]])}
    metrics = {k: float(v) for k, v in ppo_mjx.update_metrics(traj, losses, jnp.asarray(targets), jnp.array(4),
                                                                T * N).items()}
    residual = targets - value
    assert metrics == pytest.approx(dict(
        update=5, env_steps=5 * T * N, episode_return=8.0, episode_length=12.0, episodes=2, terminations=1,
        truncations=1, reward=2.5, explained_variance=1 - residual.var() / (targets.var() + 1e-8),
        **{"reward/upright": 5.0}, pelvis_height=0.9, nan_resets=1.0, actor_loss=2.0, approx_kl=0.2), rel=1e-6)
    no_episode = traj.replace(terminated=jnp.zeros((T, N), bool), truncated=jnp.zeros((T, N), bool))
    assert np.isnan(ppo_mjx.update_metrics(no_episode, losses, jnp.asarray(targets), jnp.array(0), 6)
                    ["episode_return"])


def optimizer_steps(config, hparams, steps, grad=1.0):
    """Parameter changes of `steps` updates with a constant gradient, by the optimizer the trainer builds from
    `config` and the traced `hparams` (init and update, as in make_trainer)."""
    tx = ppo_mjx.make_optimizer(config, hparams, steps)
    params = jnp.zeros(3)
    state = tx.init(params)
    changes = []
    for _ in range(steps):
        updates, state = tx.update(jnp.full(3, grad), state, params)
        changes.append(-float(updates[0]))
        params = optax.apply_updates(params, updates)
    return np.array(changes)


def test_the_optimizer_is_built_from_the_traced_hyperparameters():
    """The optimizer steps with the hyperparameters given to the program, not the config's: Adam with a constant
    gradient moves each parameter by the learning rate per step."""
    config = dict(CONFIG, lr=3e-4, anneal_lr=False)
    hparams = dict(ppo_mjx.hyperparameters(config, {}), lr=jnp.float32(0.01))
    np.testing.assert_allclose(optimizer_steps(config, hparams, 4), 0.01, rtol=1e-4)
    np.testing.assert_array_equal(optimizer_steps(config, dict(hparams, lr=jnp.float32(0.0)), 4), 0.0)
    # max_grad_norm clips the gradient to norm 1e-3 before Adam (eps 1e-5), which then steps lr * g / (g + eps).
    clipped = 1e-3 / np.sqrt(3)
    np.testing.assert_allclose(optimizer_steps(config, dict(hparams, max_grad_norm=jnp.float32(1e-3)), 4, grad=1e6),
                               0.01 * clipped / (clipped + 1e-5), rtol=1e-4)


def test_learning_rate_anneals_linearly_to_zero():
    steps = 5
    hparams = dict(ppo_mjx.hyperparameters(CONFIG, {}), lr=jnp.float32(0.01))
    annealed = optimizer_steps(dict(CONFIG, anneal_lr=True), hparams, steps)
    np.testing.assert_allclose(annealed, 0.01 * (1 - np.arange(steps) / steps), rtol=1e-4)
    np.testing.assert_allclose(optimizer_steps(dict(CONFIG, anneal_lr=False), hparams, steps), 0.01, rtol=1e-4)


def adapted_learning_rate_reference(lr, kl, desired_kl):
    """rsl_rl's adaptive schedule as its PPO.update writes it, for one minibatch."""
    if kl > desired_kl * 2.0:
        return max(1e-5, lr / 1.5)
    if 0.0 < kl < desired_kl / 2.0:
        return min(1e-2, lr * 1.5)
    return lr


@pytest.mark.parametrize("lr", [1e-5, 1.2e-5, 3e-4, 8e-3, 1e-2])
def test_the_adaptive_learning_rate_follows_rsl_rls_rule(lr):
    desired = 0.01
    config = dict(CONFIG, desired_kl=desired, anneal_lr=False)
    hparams = dict(ppo_mjx.hyperparameters(config, {}), lr=jnp.float32(lr))
    opt_state = ppo_mjx.make_optimizer(config, hparams, 1).init(jnp.zeros(3))
    for kl in [0.0, 1e-4, 0.0049, 0.005, 0.01, 0.02, 0.0201, 0.3]:
        state, rate = ppo_mjx.adapted_learning_rate(opt_state, jnp.float32(kl), desired)
        assert float(state[1].hyperparams["learning_rate"]) == float(rate)
        got = float(rate)
        assert got == pytest.approx(adapted_learning_rate_reference(lr, kl, desired), rel=1e-6), (lr, kl)


@pytest.mark.parametrize("desired_kl, lr, direction", [(1e-12, 1e-3, -1), (1e3, 1e-4, 1)])
def test_the_adaptive_learning_rate_moves_by_one_factor_per_minibatch(desired_kl, lr, direction):
    """A KL target far below (above) every minibatch's KL divides (multiplies) the learning rate by 1.5 at each of
    the update's 4 x 2 optimizer steps, or at all but the first, whose KL is that of the rollout's own policy (about
    0); the logged rate stays within the bounds; the default optimizer keeps no learning rate in its state."""
    env = make_plain_cartpole()
    config = dict(CONFIG, total_timesteps=64 * 32, update_epochs=4, num_minibatches=2, lr=lr, anneal_lr=False,
                  desired_kl=desired_kl)
    trainer = ppo_mjx.make_trainer(config, env)
    hparams = ppo_mjx.hyperparameters(config, env.default_params)
    runner, metrics = jax.jit(trainer.run_updates, static_argnums=2)(trainer.init(jax.random.key(0), hparams),
                                                                     hparams, 1)
    final = float(runner.train_state.opt_state[1].hyperparams["learning_rate"])
    steps = round(math.log(final / lr, 1.5)) * direction
    assert steps in (7, 8), final
    np.testing.assert_allclose(final, lr * 1.5 ** (direction * steps), rtol=1e-5)
    assert 1e-5 < float(metrics["learning_rate"][0]) < 1e-2
    assert not any(hasattr(state, "hyperparams") for state in ppo_mjx.make_optimizer(
        dict(config, desired_kl=0.0), hparams, 8).init(jnp.zeros(3))), "the default optimizer holds no learning rate"


def test_a_checkpoint_carries_the_adaptive_learning_rate():
    """The adapted rate is an array of the runner, so a checkpoint (runs.tree_to_arrays) saves it and a resumed run
    (runs.arrays_to_tree on the trainer's own template) continues from it, not from the config's `lr`."""
    env = make_plain_cartpole()
    config = dict(CONFIG, desired_kl=0.01, anneal_lr=False)
    trainer = ppo_mjx.make_trainer(config, env)
    hparams = ppo_mjx.hyperparameters(config, env.default_params)
    runner = trainer.init(jax.random.key(0), hparams)
    adapted = trainer.init(jax.random.key(0), dict(hparams, lr=jnp.float32(1.25e-4)))  # as if adapted to 1.25e-4
    template = jax.eval_shape(trainer.init, jax.random.key(0), hparams)
    back = runs.arrays_to_tree(runs.tree_to_arrays(adapted), template, "checkpoint")
    assert float(back.train_state.opt_state[1].hyperparams["learning_rate"]) == np.float32(1.25e-4)
    assert float(runner.train_state.opt_state[1].hyperparams["learning_rate"]) == np.float32(config["lr"])


def test_make_train_trains_a_plain_jax_env_as_it_is():
    """A cartpole written from scratch (tests/cartpole.py: reset, step(state, action, params), no `nan_reset` info
    key, no adapter) learns to balance through make_train, and the env params in `hparams` reach its `step`
    unchanged: its reward per step is exactly the `alive` param."""
    env = make_plain_cartpole()
    config = dict(CONFIG, total_timesteps=64 * 32 * 40)
    key, hparams = jax.random.key(0), ppo_mjx.hyperparameters(config, env.default_params)
    train = jax.jit(ppo_mjx.make_train(config, env)).lower(key, hparams).compile(compiler_options=XLA_DEFAULTS)
    metrics = train(key, hparams)["metrics"]
    assert "nan_resets" not in metrics
    np.testing.assert_array_equal(metrics["reward"], 1.0)  # env.default_params
    assert metrics["episode_return"][:3].mean() < 50 and metrics["episode_return"][-3:].mean() >= 150, \
        metrics["episode_return"]
    doubled = ppo_mjx.hyperparameters(config, dict(env.default_params, alive=jnp.float32(2.0)))
    np.testing.assert_array_equal(train(key, doubled)["metrics"]["reward"], 2.0)


@struct.dataclass
class PrivilegedState:
    """A state of `env` with a critic observation beside the policy's: what ppo_mjx reads of an env with a privileged
    critic."""

    inner: Any
    critic_obs: jax.Array
    final_critic_obs: jax.Array
    obs = property(lambda self: self.inner.obs)
    reward = property(lambda self: self.inner.reward)
    terminated = property(lambda self: self.inner.terminated)
    truncated = property(lambda self: self.inner.truncated)
    final_obs = property(lambda self: self.inner.final_obs)
    info = property(lambda self: self.inner.info)


def with_critic_view(env, view, critic_size):
    """`env` handing its critic `view(obs)` (`critic_size` numbers) as a privileged observation."""

    def reset(key):
        state = env.reset(key)
        return PrivilegedState(state, view(state.obs), view(state.final_obs))

    def step(state, action, params):
        inner = env.step(state.inner, action, params)
        return PrivilegedState(inner, view(inner.obs), view(inner.final_obs))

    return SimpleNamespace(**(vars(env) | dict(reset=reset, step=step, critic_observation_size=critic_size)))


def test_a_privileged_critic_reads_its_own_observation_and_the_policy_never_does():
    """A critic observation equal to the policy's trains exactly as none does; one with more in it gets a critic of
    its width and statistics of its own, while the policy (its layers, its first rollout) does not change."""
    env = make_plain_cartpole()
    config = dict(CONFIG, total_timesteps=64 * 32 * 3)
    train = lambda env: jax.device_get(jax.jit(ppo_mjx.make_train(config, env))(jax.random.key(0)))
    plain = train(env)
    same = train(with_critic_view(env, lambda obs: obs, 4))
    close = functools.partial(np.testing.assert_allclose, rtol=1e-4, atol=1e-6)  # float rounding: fused differently
    for name, value in plain["metrics"].items():
        close(same["metrics"][name], value, err_msg=name)
    jax.tree.map(close, same["runner"].train_state.params, plain["runner"].train_state.params)
    jax.tree.map(close, same["runner"].critic_normalizer, plain["runner"].normalizer)
    assert plain["runner"].critic_normalizer is None

    richer = train(with_critic_view(env, lambda obs: jnp.concatenate([obs, 10.0 * obs[..., :1] + 3.0], -1), 5))
    params, critic_normalizer = richer["runner"].train_state.params["params"], richer["runner"].critic_normalizer
    critic_first = f"Dense_{len(config['actor_hidden']) + 1}"  # after the actor's hidden layers and its mean
    assert params["Dense_0"]["kernel"].shape == (4, config["actor_hidden"][0])
    assert params[critic_first]["kernel"].shape == (5, config["critic_hidden"][0])
    assert critic_normalizer.mean.shape == (5,) and critic_normalizer.mean[4] == pytest.approx(
        10.0 * critic_normalizer.mean[0] + 3.0, rel=1e-5)
    first = {k: v[0] for k, v in richer["metrics"].items()}
    for name in ("episode_return", "episode_length", "reward"):  # the first rollout: the same actions
        assert first[name] == pytest.approx(plain["metrics"][name][0], rel=1e-6), name
    assert abs(first["value_loss"] / plain["metrics"]["value_loss"][0] - 1) > 1e-3  # its critic read the extra
