"""Two cartpoles: an MJX cartpole task built with envs.build_env (the same env machinery, run folders and curriculum
as the dinosaurs), and a cartpole written from scratch in plain JAX the way a user would write their own env
(`make_plain_cartpole`): ppo_mjx.make_train trains it as it is, with no adapter."""

import os
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import mujoco
from flax import struct

import envs
import tasks
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
    def init(uniform, kinematics, data):
        return kinematics(data, qpos=uniform((2,), -0.05, 0.05))

    def observe(data, prev_action):
        return jnp.concatenate([data.qpos, data.qvel])

    def reward_terms(data, action, prev_action):
        return dict(upright=jnp.ones(()))  # +1 per step alive: the pole must stay up

    def is_terminated(data):
        return (jnp.abs(data.qpos[1]) > 0.4) | (jnp.abs(data.qpos[0]) > 2.5)

    def measure(data):
        return dict(pole_angle=jnp.abs(data.qpos[1]))

    return tasks.Task(init, observe, lambda action: action, reward_terms, is_terminated, measure, draws=1)


def make_cartpole_env(config=CONFIG, name="cartpole"):
    mj_model = mujoco.MjModel.from_xml_path(MODEL)
    mj_model.opt.timestep = config["sim_dt"]
    return envs.build_env(name, config, mj_model, cartpole_task(mj_model))


@struct.dataclass
class PlainState:
    physics: jax.Array  # cart position, cart velocity, pole angle, pole angular velocity
    obs: jax.Array
    reward: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    final_obs: jax.Array
    time: jax.Array
    rng: jax.Array
    info: dict


def make_plain_cartpole(episode_length=200):
    """Classic cartpole (Barto et al. 1983; gymnasium's CartPole dynamics) with a continuous push force, in plain JAX:
    reset(key), step(state, action, params) with params {"force": N per unit action, "alive": reward per step}."""

    def reset(key):
        key, init_key = jax.random.split(key)
        physics = jax.random.uniform(init_key, (4,), minval=-0.05, maxval=0.05)
        zero, false = jnp.zeros(()), jnp.zeros((), bool)
        return PlainState(physics, physics, zero, false, false, physics, jnp.zeros((), jnp.int32), key,
                          {"pole_angle": zero})

    def step(state, action, params):
        x, x_dot, theta, theta_dot = state.physics
        force = params["force"] * jnp.clip(action[0], -1.0, 1.0)
        cos, sin = jnp.cos(theta), jnp.sin(theta)
        temp = (force + 0.05 * theta_dot**2 * sin) / 1.1  # pole mass 0.1 kg, half length 0.5 m; cart 1 kg
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos**2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        physics = state.physics + 0.02 * jnp.array([x_dot, x_acc, theta_dot, theta_acc])
        terminated = (jnp.abs(physics[0]) > 2.4) | (jnp.abs(physics[2]) > 0.21)
        time = state.time + 1
        truncated = (time >= episode_length) & ~terminated
        rng, reset_key = jax.random.split(state.rng)
        fresh = reset(reset_key)
        done = terminated | truncated
        return PlainState(jnp.where(done, fresh.physics, physics), jnp.where(done, fresh.obs, physics),
                          params["alive"] * jnp.ones(()), terminated, truncated, physics, jnp.where(done, 0, time),
                          rng, {"pole_angle": jnp.abs(physics[2])})

    return SimpleNamespace(observation_size=4, action_size=1, reset=reset, step=step,
                           default_params={"force": jnp.float32(10.0), "alive": jnp.float32(1.0)})
