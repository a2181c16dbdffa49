"""The learner's pieces against simple references, and PPO learning a small MJX task."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import ppo_mjx
from cartpole import CONFIG, make_cartpole_env


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
    pi, value = network.apply(params, obs)
    mean = np.asarray(pi.mean())
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
    norm = ppo_mjx.normalizer_init(jnp.asarray(batches[0]))
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
    with pytest.raises(ppo_mjx.ConfigError, match="not divisible"):
        ppo_mjx.check_config(dict(CONFIG, num_envs=10, num_steps=3, num_minibatches=4))


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
    hparams = ppo_mjx.stack([ppo_mjx.hyperparameters(CONFIG), ppo_mjx.hyperparameters(dict(CONFIG, lr=1e-3))])
    train = ppo_mjx.make_train(CONFIG, env)
    out = jax.jit(jax.vmap(train))(jax.random.split(jax.random.key(0), 2), hparams)
    runner, metrics = out["runner"], out["metrics"]
    assert metrics["episode_return"].shape == (2, CONFIG["total_timesteps"] // (64 * 32))  # per-update scalars only
    assert int(metrics["nan_resets"].sum()) == 0

    def evaluate(params, normalizer):
        policy = ppo_mjx.deterministic_policy(CONFIG, env, params, normalizer)
        return ppo_mjx.evaluation_rollout(env, policy, jax.random.key(2), 32)[0]["episode_return"]

    returns = np.asarray(jax.jit(jax.vmap(evaluate))(runner.train_state.params, runner.normalizer))
    # Every deterministic episode beats the best of 256 random ones (random: ~20 on average, ~100 at best).
    assert returns.min() > random_best, (returns, random_best)
    assert returns.mean(1).min() >= 150.0, returns.mean(1)
