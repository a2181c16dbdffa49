"""A cartpole balance task built with envs.build_env: the same env machinery and trainer as the dinosaurs."""

import os

import jax
import jax.numpy as jnp
import mujoco
from mujoco import mjx

import envs
from configs.ppo import PPO

MODEL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "assets", "cartpole.xml")

CONFIG = dict(
    PPO,
    num_envs=64,
    num_steps=32,
    total_timesteps=64 * 32 * 60,
    num_minibatches=8,
    gamma=0.99,
    ent_coef=0.0,
    init_log_std=0.0,
    log_every=1000,
    eval_episodes=16,
    sim_dt=0.01,
    ctrl_dt=0.02,
    episode_length=200,
    push_interval=0,
    mjx_impl="jax",
    reward_weights=dict(upright=1.0, termination=0.0),
)

# Six updates, a chunk each: the run-folder tests (resume, seeds, sweeps, sharding) compare runs of this config.
SHORT_CONFIG = dict(CONFIG, total_timesteps=64 * 32 * 6, log_every=1, checkpoint_every=100, eval_episodes=4)


def cartpole_task(mj_model):
    mjx_model = envs.put_model(mj_model)
    template = envs.make_data(mjx_model)

    def init(key):
        qpos = jax.random.uniform(key, (2,), minval=-0.05, maxval=0.05)
        return mjx.kinematics(mjx_model, template.replace(qpos=qpos))

    def observe(data, prev_action):
        return jnp.concatenate([data.qpos, data.qvel])

    def reward_terms(data, action, prev_action):
        return dict(upright=jnp.ones(()))  # +1 per step alive: the pole must stay up

    def is_terminated(data):
        return (jnp.abs(data.qpos[1]) > 0.4) | (jnp.abs(data.qpos[0]) > 2.5)

    def measure(data):
        return dict(pole_angle=jnp.abs(data.qpos[1]))

    return envs.Task(init, observe, lambda action: action, reward_terms, is_terminated, measure)


def make_cartpole_env(config=CONFIG, name="cartpole"):
    mj_model = mujoco.MjModel.from_xml_path(MODEL)
    mj_model.opt.timestep = config["sim_dt"]
    return envs.build_env(name, config, mj_model, cartpole_task(mj_model))
