"""Left-right symmetry: each body's mirror (tasks.mirror) against its physics, the mirror loss against numpy, and
symmetry augmentation in training (ppo_mjx)."""

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
import pytest

import cartpole
import ppo_mjx
import tasks
from configs import ConfigError, get_config


def reflected_state(mj_model, data, joint_index, joint_sign):
    """`data`'s mirror image through the world x-z plane: positions and linear velocities flip y, the rotation's axis
    flips x and z, the joints swap sides (roll and yaw change sign), the command flips its left speed and yaw rate."""
    out = mujoco.MjData(mj_model)
    out.qpos[:3], out.qvel[:3] = data.qpos[:3] * [1, -1, 1], data.qvel[:3] * [1, -1, 1]
    out.qpos[3:7] = data.qpos[3:7] * [1, -1, 1, -1]
    out.qvel[3:6] = data.qvel[3:6] * [-1, 1, -1]
    out.qpos[7:], out.qvel[6:] = data.qpos[7:][joint_index] * joint_sign, data.qvel[6:][joint_index] * joint_sign
    out.userdata[:3] = data.userdata[:3] * [1, -1, -1]
    mujoco.mj_forward(mj_model, out)
    return out


@pytest.mark.parametrize("env_name", ["trex_stage2", "velociraptor_stage2", "brachiosaurus_stage2"])
def test_each_body_moves_as_its_mirror_says(env_name):
    """A random state in the air (joints off home, velocities, a heading, a command) and its mirror image: the
    observation of one is the mirrored observation of the other. From home, 20 control steps of plain MuJoCo under
    random actions and their mirror images keep it so, feet on the floor. A wrong sign or a swapped part would part
    them at once."""
    config = get_config(env_name, dict(symmetry_augmentation=True))
    mj_model = tasks.load_model(config)
    body = tasks.legged_body(config, mj_model, np)
    mirror = tasks.mirror(config, mj_model)
    joint_index, joint_sign = tasks.mirrored_names([mj_model.joint(i).name for i in range(1, mj_model.njnt)])
    reflect_obs = lambda obs: obs[mirror.obs_index] * mirror.obs_sign
    reflect_action = lambda action: action[mirror.action_index] * mirror.action_sign
    rng = np.random.default_rng(0)
    data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.keyframe("home").id)
    data.qpos[2] += 1.0
    data.qpos[3:7] = tasks.rotate_yaw(np, 0.7, data.qpos[3:7])
    data.qpos[7:] += rng.uniform(-0.2, 0.2, mj_model.nq - 7)
    data.qvel[:] = rng.normal(0.0, 0.5, mj_model.nv)
    data.userdata[:3] = [0.8, 0.2, 0.4]
    mujoco.mj_forward(mj_model, data)
    image = reflected_state(mj_model, data, joint_index, joint_sign)
    action = rng.uniform(-1.0, 1.0, mj_model.nu)
    obs = tasks.observe(body, data, action)
    np.testing.assert_allclose(tasks.observe(body, image, reflect_action(action)), reflect_obs(obs), atol=1e-9)
    assert np.abs(reflect_obs(obs) - obs).max() > 0.1

    mujoco.mj_resetDataKeyframe(mj_model, data, mj_model.keyframe("home").id)
    data.qpos[3:7] = tasks.rotate_yaw(np, 0.3, data.qpos[3:7])
    mujoco.mj_forward(mj_model, data)
    image = reflected_state(mj_model, data, joint_index, joint_sign)
    touched = False
    for _ in range(20):
        action = rng.uniform(-0.5, 0.5, mj_model.nu)
        data.ctrl[:], image.ctrl[:] = (tasks.action_to_ctrl(body, action),
                                       tasks.action_to_ctrl(body, reflect_action(action)))
        for _ in range(5):
            mujoco.mj_step(mj_model, data)
            mujoco.mj_step(mj_model, image)
        touched |= bool(tasks.foot_contacts(body, data).any())
    assert touched  # the feet met the floor on the way
    np.testing.assert_allclose(tasks.observe(body, image, reflect_action(action)),
                               reflect_obs(tasks.observe(body, data, action)), atol=1e-7)


def test_mirror_names_pair_the_sides_and_a_part_without_its_image_is_refused():
    index, sign = tasks.mirrored_names(["l_hip_roll", "r_hip_roll", "fl_knee", "fr_knee", "neck_yaw", "tail_pitch"])
    np.testing.assert_array_equal(index, [1, 0, 3, 2, 4, 5])
    np.testing.assert_array_equal(sign, [-1, -1, 1, 1, -1, 1])
    with pytest.raises(ConfigError, match="no mirror image for l_toe"):
        tasks.mirrored_names(["l_toe", "tail_pitch"])


def linear_policy(params, obs, critic_obs=None, value=True):
    """A stand-in for the network: the mean is linear in the observation; log-std and value are constants."""
    batch = obs.shape[0]
    return (obs @ params["weights"], jnp.broadcast_to(params["log_std"], (batch, 2)),
            jnp.broadcast_to(params["value"], (batch,)) if value else None)


def test_the_mirror_loss_matches_numpy():
    """The loss adds `symmetry_loss` times the mean squared gap between the mean action of each sample's mirror image
    and the mirror image of its mean action, and nothing else; without `reflect` there is no such term. An augmented
    minibatch, each sample beside its mirror image and no `mirrored_obs`, gives the same gap."""
    rng = np.random.default_rng(1)
    weights = rng.normal(size=(3, 2)).astype(np.float32)
    obs, mirrored_obs = rng.normal(size=(5, 3)).astype(np.float32), rng.normal(size=(5, 3)).astype(np.float32)
    params = dict(weights=jnp.asarray(weights), log_std=jnp.array([-0.5, 0.1]), value=jnp.array(1.0))
    batch = ppo_mjx.Batch(jnp.asarray(obs), None, jnp.zeros((5, 2)), jnp.zeros((5, 2)), jnp.zeros(5), jnp.ones(5),
                          jnp.asarray(rng.normal(size=5), jnp.float32), jnp.zeros(5), jnp.asarray(mirrored_obs))
    hparams = dict(clip_eps=0.2, vf_coef=0.5, ent_coef=0.01)
    reflect = lambda action: action[..., ::-1] * jnp.array([1.0, -1.0])
    plain_total, plain = ppo_mjx.ppo_loss(params, linear_policy, batch, hparams)
    total, parts = ppo_mjx.ppo_loss(params, linear_policy, batch, hparams, 0.0, reflect, 0.7)
    gap = np.square(mirrored_obs @ weights - (obs @ weights)[:, ::-1] * [1.0, -1.0]).mean()
    assert "mirror_gap" not in plain
    assert float(parts["mirror_gap"]) == pytest.approx(gap, rel=1e-5)
    assert float(total - plain_total) == pytest.approx(0.7 * gap, rel=1e-4)
    pairs = jax.tree.map(lambda a, b: jnp.stack([a, b], axis=1).reshape((10,) + a.shape[1:]),
                         batch.replace(mirrored_obs=None), batch.replace(obs=batch.mirrored_obs, mirrored_obs=None))
    _, paired = ppo_mjx.ppo_loss(params, linear_policy, pairs, hparams, 0.0, reflect, 0.7)
    assert float(paired["mirror_gap"]) == pytest.approx(gap, rel=1e-5)


def test_weighted_samples_match_numpy():
    """With importance weights the clipped surrogate is the mean of each sample's times its weight, and the KL and
    clip fraction are weighted means; the value loss and entropy do not change. All weights 1 is the plain loss."""
    rng = np.random.default_rng(2)
    weights = rng.normal(size=(3, 2)).astype(np.float32)
    obs, action = rng.normal(size=(6, 3)).astype(np.float32), rng.normal(size=(6, 2)).astype(np.float32)
    log_std = np.array([-0.5, 0.1])
    log_prob = (-0.5 * np.square((action - obs @ weights) / np.exp(log_std)) - log_std - 0.5 * np.log(2 * np.pi)).sum(1)
    old_log_prob = (log_prob + rng.normal(0.0, 0.25, size=6)).astype(np.float32)
    advantage, importance = rng.normal(size=6).astype(np.float32), rng.uniform(0, 1, size=6).astype(np.float32)
    params = dict(weights=jnp.asarray(weights), log_std=jnp.asarray(log_std), value=jnp.array(1.0))
    batch = ppo_mjx.Batch(jnp.asarray(obs), None, jnp.asarray(action), jnp.zeros((6, 2)), jnp.asarray(old_log_prob),
                          jnp.ones(6), jnp.asarray(advantage), jnp.zeros(6))
    hparams = dict(clip_eps=0.2, vf_coef=0.5, ent_coef=0.01)
    _, plain = ppo_mjx.ppo_loss(params, linear_policy, batch, hparams)
    _, ones = ppo_mjx.ppo_loss(params, linear_policy, batch.replace(weight=jnp.ones(6)), hparams)
    _, weighted = ppo_mjx.ppo_loss(params, linear_policy, batch.replace(weight=jnp.asarray(importance)), hparams)
    ratio = np.exp(log_prob - old_log_prob)
    adv = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
    surrogate = -np.minimum(ratio * adv, np.clip(ratio, 0.8, 1.2) * adv)
    kl, clipped = ratio - 1 - np.log(ratio), np.abs(ratio - 1) > 0.2
    assert 0 < clipped.sum() < 6  # some samples clipped, some not
    assert float(weighted["actor_loss"]) == pytest.approx((importance * surrogate).mean(), rel=1e-4)
    assert float(weighted["approx_kl"]) == pytest.approx((importance * kl).sum() / importance.sum(), rel=1e-4)
    assert float(weighted["clip_fraction"]) == pytest.approx((importance * clipped).sum() / importance.sum(), rel=1e-5)
    assert float(weighted["importance_weight"]) == pytest.approx(importance.mean(), rel=1e-6)
    assert float(plain["actor_loss"]) == pytest.approx(surrogate.mean(), rel=1e-4)
    for key in plain:
        assert float(ones[key]) == pytest.approx(float(plain[key]), rel=1e-5), key
    for key in ("value_loss", "entropy"):
        assert float(weighted[key]) == float(plain[key]), key


def test_symmetry_makes_the_policy_symmetric():
    """The plain cartpole is its own mirror image with every sign flipped. Trained with its mirror, by the loss alone
    or on the mirrored samples with it, the policy's mean action at a mirrored observation is the mirrored mean
    action, ten times more nearly than trained without, and the policy still balances the pole. Without a mirror
    either setting is refused."""
    env = cartpole.make_plain_cartpole()
    config = dict(cartpole.CONFIG, total_timesteps=64 * 32 * 30)
    loss_alone = dict(config, symmetry_loss=1.0)
    augmented = dict(loss_alone, symmetry_augmentation=True)
    for run_config in (loss_alone, dict(config, symmetry_augmentation=True)):
        with pytest.raises(ValueError, match="symmetry_augmentation and symmetry_loss need an env with a `mirror`"):
            ppo_mjx.make_train(run_config, env)
    obs = jax.random.uniform(jax.random.key(1), (256, 4), minval=-0.1, maxval=0.1)
    gaps = {}
    for name, run_config in (("plain", config), ("loss alone", loss_alone), ("augmented", augmented)):
        env.mirror = tasks.Mirror(np.arange(4), -np.ones(4, np.float32), np.arange(1), -np.ones(1, np.float32))
        out = jax.jit(ppo_mjx.make_train(run_config, env))(jax.random.key(0))
        metrics = jax.tree.map(np.asarray, out["metrics"])
        assert metrics["episode_length"][-5:].mean() > 100, name  # random actions keep the pole up ~20 steps
        assert ("mirror_gap" in metrics) == (name != "plain"), name
        policy = ppo_mjx.policy_mean(run_config, 1, out["runner"].train_state.params, out["runner"].normalizer)
        gaps[name] = float(jnp.abs(policy(-obs) + policy(obs)).mean())
    assert gaps["loss alone"] < 0.1 * gaps["plain"], gaps
    assert gaps["augmented"] < 0.1 * gaps["plain"], gaps


def test_decoupled_images_start_their_ratios_at_1():
    """One epoch of one minibatch takes its loss at the parameters that collected the rollout: with each image's ratio
    taken from the rollout policy's density at the image (its reflected action and carried noise), every ratio is 1,
    so the KL and clip fraction are 0 at every update, and an image's weight is at most 1. With rsl_rl's ratios (over
    the sample's log-prob) an image's ratio is not 1 while the policy is not symmetric."""
    env = cartpole.make_plain_cartpole()
    # not the cartpole's symmetry (an odd network, as one starts, is symmetric under every sign flipped): the images
    # here only need to differ from the samples
    env.mirror = tasks.Mirror(np.array([1, 0, 3, 2]), np.ones(4, np.float32), np.arange(1), np.ones(1, np.float32))
    config = dict(cartpole.CONFIG, total_timesteps=64 * 32 * 4, update_epochs=1, num_minibatches=1,
                  symmetry_augmentation=True, action_noise_correlation=0.5, init_log_std=-2.0)
    runs = {}
    for decoupled in (True, False):
        out = jax.jit(ppo_mjx.make_train(dict(config, symmetry_ratio_from_image=decoupled), env))(jax.random.key(0))
        runs[decoupled] = jax.tree.map(np.asarray, out["metrics"])
    np.testing.assert_allclose(runs[True]["approx_kl"], 0.0, atol=1e-6)
    np.testing.assert_array_equal(runs[True]["clip_fraction"], 0.0)
    assert (runs[True]["importance_weight"] <= 1.0).all() and (runs[True]["importance_weight"] > 0.0).all()
    assert runs[False]["approx_kl"].min() > 1e-5, runs[False]["approx_kl"]
    assert "importance_weight" not in runs[False]


@pytest.mark.parametrize("setting", [dict(symmetry_augmentation=True), dict(symmetry_loss=0.5)])
def test_a_body_without_a_mirror_is_refused(setting):
    with pytest.raises(ConfigError, match="env 'cartpole': symmetry_augmentation and symmetry_loss need a body with a "
                                          "left-right mirror"):
        cartpole.make_cartpole_env(dict(cartpole.CONFIG, **setting))
