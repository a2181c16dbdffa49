"""Functional MJX environments.

`make_env("trex_stage1", **overrides)` returns an `Env` whose `reset(key) -> EnvState` and
`step(state, action, params) -> EnvState` are pure, so they work under `jit` and `vmap`. `params` is any pytree the
step reads (here the reward weights, `env.default_params` by default): a learner passes it through unchanged, so one
compiled program serves runs whose weights differ. `build_env` composes what every env shares from small pieces,
each a function a screen long (the observation with its noise, the reset, actuation, pushes, the physics step with
the episode's model, termination and reward bookkeeping with the NaN guard and time limit, the auto-reset); a
`tasks.Task` holds what differs (start state, observation, rewards, success). The physics (simulation.py) is MJX,
or plain MuJoCo through a host callback for sim-to-sim checks.
"""

import functools
from dataclasses import dataclass
from typing import Any, Callable, Optional

import jax
import jax.numpy as jnp
import mujoco
from flax import struct
from mujoco import mjx

import commands
import critic
import model_checks
import randomization
import simulation
import tasks
from configs import ConfigError, get_config


@struct.dataclass
class EnvState:
    data: mjx.Data  # physics state, already reset to a fresh start when the last transition ended the episode
    obs: jax.Array  # observation of `data`
    reward: jax.Array  # reward of the last transition
    terminated: jax.Array  # last transition failed (fall or non-finite physics): no bootstrapping through it
    truncated: jax.Array  # last transition hit the time limit: the learner bootstraps from `final_obs`
    final_obs: jax.Array  # observation at the end of the last transition, before any auto-reset
    time: jax.Array  # control steps since the episode began
    prev_action: jax.Array  # last applied action (tasks.applied_action); part of the observation
    rng: jax.Array  # key for pushes and the next reset
    info: dict  # per-transition scalars: weighted reward terms, task measures (before reset), nan_reset, push_speed
    episode: dict  # what the episode drew at reset (randomization.draw), its recent actions and next push; {} if none
    critic_obs: Any = None  # the privileged critic's observation of `data` (critic.py); None without one
    final_critic_obs: Any = None  # the critic's observation at the end of the last transition, before any auto-reset


@dataclass(frozen=True)
class Env:
    name: str
    config: dict
    mj_model: mujoco.MjModel
    observation_size: int
    action_size: int
    reset: Callable  # (key) -> EnvState
    step: Callable  # (EnvState, action, params=None) -> EnvState; params default to `default_params`
    default_params: Any  # the config's reward weights as float32 scalars ({term: weight})
    episode_success: Optional[Callable]  # the task's: (an episode's record) -> bool, or None (tasks.Task)
    critic_observation_size: Optional[int] = None  # with `privileged_critic`: the size of `critic_obs`
    mirror: Any = None  # tasks.Mirror: the body's left-right reflection of observations and actions


def make_env(name, physics="mjx", **overrides):
    """The env named `name` (a key of configs.CONFIGS) with config `overrides` applied."""
    return env_from_config(name, get_config(name, overrides), physics)


def env_from_config(name, config, physics="mjx"):
    """`physics` "mjx" steps MJX (jit, vmap, GPU) with the config's `mjx_impl`; "mujoco" steps plain MuJoCo (C, CPU)
    for sim-to-sim checks, deriving positions and sensors with MJX's JAX implementation."""
    if physics == "mujoco":
        config = dict(config, mjx_impl="jax")
    simulation.check_mjx_impl(config["mjx_impl"])
    mj_model = tasks.load_model(config)
    model_checks.check_model(mj_model, config)  # before anything compiles
    randomization.check(config, mj_model)
    task = tasks.TASKS[config["task"]](config, mj_model, jnp)
    return build_env(name, config, mj_model, task, physics)


def env_params(config):
    """The params `step` reads, from a config: its reward weights as float32 scalars."""
    return {k: jnp.float32(v) for k, v in config["reward_weights"].items()}


# An env is built from the pieces below, each a plain function of `EnvParts` (what every piece reads, worked out once),
# in the order a step runs them: the observation with its noise, the reset, actuation, the push, the physics step with
# the episode's model, the transition's bookkeeping (termination, reward, info) and the auto-reset. `build_env` binds
# them into an `Env`.


@dataclass(frozen=True)
class EnvParts:
    """What the pieces of one env read, worked out once by `build_env`."""

    config: dict
    task: tasks.Task
    plan: randomization.Plan  # what the config randomizes, pushes included
    schedule: Optional[commands.Schedule]  # the stage's velocity commands, or None
    nu: int  # actuators: the action size
    mjx_model: Any  # the nominal MJX model; `episode_model` writes an episode's draws into it
    advance: Callable  # (model, data) -> data one control step later (`simulation.mjx_physics` or `mujoco_physics`)
    blank: Any  # fresh MJX data, from which every start is drawn
    zero_action: jax.Array
    default_params: Any  # what `step` reads when given no params: the config's reward weights (`env_params`)


def uniform_from(key, count):
    """A `uniform(shape, low, high)` callback that draws `count` times, each from its own split of `key`."""
    keys = iter([key] if count == 1 else jax.random.split(key, count))
    return lambda shape, low, high: jax.random.uniform(next(keys), shape, minval=low, maxval=high)


def kinematics(mjx_model, data, **fields):
    """`data` with `fields` set and its positions recomputed (the tasks' `kinematics` callback)."""
    return simulation.mjx_kinematics(mjx_model, data.replace(**fields))


def with_noise(parts, obs, noise_key):
    """`obs` with the config's uniform observation noise drawn from `noise_key`."""
    if parts.plan.noise is None:
        return obs
    return obs + uniform_from(noise_key, 1)(obs.shape, -parts.plan.noise, parts.plan.noise)


def reset(parts, key):
    """A fresh episode from `key`: the task's randomized start, the episode's draws (randomization.start_episode),
    their observation, and per-transition info at zero."""
    if parts.plan.draws_episode:
        key, init_key, draw_key = jax.random.split(key, 3)
    else:
        key, init_key = jax.random.split(key)
    data = parts.task.init(uniform_from(init_key, parts.task.draws), functools.partial(kinematics, parts.mjx_model),
                           parts.blank)
    episode, noise_key = {}, None
    if parts.plan.draws_episode:
        draw_key, noise_key = jax.random.split(draw_key)
        episode = randomization.start_episode(parts.plan, parts.nu, uniform_from(draw_key, len(parts.plan.ranges) + 1),
                                              jnp)
    if parts.schedule is not None:
        key, command_key = jax.random.split(key)
        command_draws = uniform_from(command_key, commands.draws(parts.schedule))
        command, episode["next_command"] = commands.start(parts.schedule, command_draws, jnp)
        data = data.replace(userdata=parts.task.hold_command(data, command, True, 0))
    clean_obs = parts.task.observe(data, parts.zero_action)
    obs, false, time = with_noise(parts, clean_obs, noise_key), jnp.zeros((), bool), jnp.zeros((), jnp.int32)
    critic_obs = None
    if parts.config["privileged_critic"]:
        episode = critic.start_episode(parts.plan, episode)
        critic_obs = critic.critic_observation(parts.plan, parts.task, data, clean_obs, episode, time)
    return EnvState(data, obs, jnp.zeros(()), false, false, obs, time, parts.zero_action, key,
                    zero_info(parts, data), episode, critic_obs, critic_obs)


def zero_info(parts, data):
    """The info a transition reports (see `transition`), every entry zero: a reset's."""
    terms = parts.task.reward_terms(data, parts.zero_action, parts.zero_action)
    info = {f"reward/{k}": jnp.zeros(()) for k in [*terms, "termination"]}
    info |= {k: jnp.zeros(()) for k in parts.task.measure(data)} | {"nan_reset": jnp.zeros(())}
    return info | (dict(push_speed=jnp.zeros(())) if parts.plan.ranged_push else {})


def actuate(parts, data, action, episode):
    """`data` with the controls of `action` as the motors see it: `action_delay` steps late, about the home pose
    shifted by `home_offset`; and the episode's record of recent actions."""
    ctrl, episode = randomization.controls(parts.task.action_to_ctrl, action, episode, jnp)
    return data.replace(ctrl=ctrl), episode


def push(parts, data, key, time, episode):
    """Kick the free root joint sideways when a push is due (randomization.push; models with a free root only).
    Returns (data, episode, the push's speed or 0 for ranged pushes, else None)."""
    plan = parts.plan
    if not plan.push_interval:
        return data, episode, None
    kick, speed, episode = randomization.push(plan, time, episode, uniform_from(key, 3 if plan.ranged_push else 1),
                                              jnp)
    if parts.config["privileged_critic"]:
        episode = critic.remember_push(episode, kick, speed)
    return data.replace(qvel=data.qvel.at[:2].add(kick)), episode, speed if plan.ranged_push else None


def recommand(parts, data, key, time, episode):
    """`data` and `episode` after control step `time` of the command schedule (commands.update): a fresh command in
    `userdata` when one is due (tasks.command_userdata). Stages without commands are returned as they are."""
    if parts.schedule is None:
        return data, episode
    userdata, next_command = commands.update(parts.schedule, time, data.userdata, episode["next_command"],
                                             uniform_from(key, commands.draws(parts.schedule)), jnp,
                                             functools.partial(parts.task.hold_command, data))
    return data.replace(userdata=userdata), episode | dict(next_command=next_command)


def episode_model(parts, episode):
    """The MJX model with the episode's draws written into it (randomization.model_values)."""
    if not parts.plan.fields:
        return parts.mjx_model
    return parts.mjx_model.replace(**randomization.model_values(parts.plan.fields, parts.plan.where, episode, jnp))


def transition(parts, state, data, episode, action, weights, noise_key):
    """What the transition from `state` to `data` (its episode now `episode`) under `action` reports: (terminated,
    truncated, reward, final_obs, final_critic_obs, time, info). A fall or non-finite physics terminates with the
    `termination` penalty, success terminates without it, the time limit truncates; reward terms are weighted by
    `weights`, and a non-finite state reports zeros (and `nan_reset`), so training never sees a NaN."""
    finite = jnp.all(jnp.isfinite(data.qpos)) & jnp.all(jnp.isfinite(data.qvel))
    failed = parts.task.is_terminated(data) | ~finite
    terminated = failed | parts.task.is_success(data)
    time = state.time + 1
    truncated = (time >= parts.config["episode_length"]) & ~terminated
    terms = parts.task.reward_terms(data, action, state.prev_action)
    terms = {k: jnp.where(finite, weights[k] * v, 0.0) for k, v in terms.items()}
    terms["termination"] = failed.astype(jnp.float32) * weights["termination"]  # float32 as from `reset`
    reward = sum(terms.values())
    clean_obs = parts.task.observe(data, action)
    final_obs = jnp.where(finite, with_noise(parts, clean_obs, noise_key), 0.0)
    final_critic_obs = None
    if parts.config["privileged_critic"]:
        final_critic_obs = jnp.where(finite, critic.critic_observation(parts.plan, parts.task, data, clean_obs, episode,
                                                                         time), 0.0)
    info = {f"reward/{k}": v for k, v in terms.items()}
    info |= {k: jnp.where(finite, v, 0.0) for k, v in parts.task.measure(data).items()}
    info["nan_reset"] = (~finite).astype(jnp.float32)
    return terminated, truncated, reward, final_obs, final_critic_obs, time, info


def auto_reset(parts, state, key):
    """`state` where its transition ended the episode: a fresh start (`reset(key)`) in place of its physics, episode,
    observation, time and last action; reward, flags, final_obs and info stay the transition's."""
    done = state.terminated | state.truncated
    fresh = reset(parts, key)
    data = jax.tree.map(lambda a, b: jnp.where(done, a, b), fresh.data, state.data)
    episode = jax.tree.map(lambda a, b: jnp.where(done, a, b), fresh.episode, state.episode)
    critic_obs = None if state.critic_obs is None else jnp.where(done, fresh.critic_obs, state.critic_obs)
    return state.replace(data=data, episode=episode, obs=jnp.where(done, fresh.obs, state.obs),
                         time=jnp.where(done, 0, state.time),
                         prev_action=jnp.where(done, parts.zero_action, state.prev_action), critic_obs=critic_obs)


def step(parts, state, action, params=None):
    """One control step of `action` (clipped to [-1, 1], low-passed by the config's `action_smoothing` if any:
    tasks.applied_action): actuate, push, advance the physics of the episode's model, report the transition, and
    reset where it ended the episode. `params`: the reward weights (`default_params`)."""
    weights = parts.default_params if params is None else params
    action = tasks.applied_action(jnp, parts.config.get("action_smoothing", 0.0), action, state.prev_action)
    rng, push_key, reset_key = jax.random.split(state.rng, 3)
    noise_key = command_key = None
    if parts.plan.noise is not None:
        rng, noise_key = jax.random.split(rng)
    if parts.schedule is not None:
        rng, command_key = jax.random.split(rng)
    data, episode = actuate(parts, state.data, action, state.episode)
    data, episode, pushed = push(parts, data, push_key, state.time, episode)
    data, episode = recommand(parts, data, command_key, state.time, episode)
    data = parts.advance(episode_model(parts, episode), data)
    terminated, truncated, reward, final_obs, final_critic_obs, time, info = transition(parts, state, data, episode,
                                                                                         action, weights, noise_key)
    info |= {} if pushed is None else dict(push_speed=pushed)
    ended = EnvState(data, final_obs, reward, terminated, truncated, final_obs, time, action, rng, info, episode,
                     final_critic_obs, final_critic_obs)
    return auto_reset(parts, ended, reset_key)


def check_reward_terms(name, config, first):
    """ConfigError unless the config weighs exactly the reward terms the task pays (`first`: a reset's state)."""
    terms = sorted(k.removeprefix("reward/") for k in first.info if k.startswith("reward/"))
    if terms != sorted(config["reward_weights"]):
        raise ConfigError(f"env '{name}': reward_weights has {', '.join(sorted(config['reward_weights']))} but the "
                          f"task's reward terms are {', '.join(terms)}")


def build_env(name, config, mj_model, task, physics="mjx"):
    """Wrap a Task into an Env: physics substeps, termination, NaN guard, time limit, pushes, domain randomization
    (randomization.py), auto-reset."""
    n_substeps = int(round(config["ctrl_dt"] / config["sim_dt"]))
    plan = randomization.plan(config, mj_model)
    if physics == "mjx":
        advance = simulation.mjx_physics(n_substeps)
    else:
        advance = simulation.mujoco_physics(mj_model, n_substeps, tuple(plan.fields))
    impl = config["mjx_impl"]
    parts = EnvParts(config, task, plan, commands.schedule(config), mj_model.nu, simulation.put_model(mj_model, impl),
                     advance, simulation.make_data(mj_model, impl), jnp.zeros(mj_model.nu), env_params(config))
    first = jax.eval_shape(functools.partial(reset, parts), jax.random.key(0))
    check_reward_terms(name, config, first)
    critic_size = None if first.critic_obs is None else int(first.critic_obs.shape[-1])
    if tasks.symmetric(config) and task.mirror is None:
        raise ConfigError(f"env '{name}': symmetry_augmentation and symmetry_loss need a body with a left-right mirror "
                          f"(tasks.mirror)")
    return Env(name, config, mj_model, int(first.obs.shape[-1]), mj_model.nu, functools.partial(reset, parts),
               functools.partial(step, parts), parts.default_params, task.episode_success, critic_size,
               task.mirror)
