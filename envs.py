"""Functional MJX environments.

`make_env("trex_stage1", **overrides)` returns an `Env` whose `reset(key) -> EnvState` and
`step(state, action, params) -> EnvState` are pure, so they work under `jit` and `vmap`. `params` is any pytree the
step reads (here the reward weights, `env.default_params` by default): a learner passes it through unchanged, so one
compiled program serves runs whose weights differ. `build_env` holds what every env shares (physics substeps,
termination, NaN guard, time limit, pushes, auto-reset); a `tasks.Task` holds what differs (start state, observation,
rewards, success). The physics is MJX, or plain MuJoCo through a host callback for sim-to-sim checks.
"""

import copy
from dataclasses import dataclass
from typing import Any, Callable, Optional

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from flax import struct
from mujoco import mjx
from mujoco.mjx import warp as mjx_warp

import model_checks
import randomization
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
    prev_action: jax.Array  # last (clipped) action; part of the observation
    rng: jax.Array  # key for pushes and the next reset
    info: dict  # per-transition scalars: weighted reward terms, task measures (before reset), nan_reset, push_speed
    episode: dict  # what the episode drew at reset (randomization.draw), its recent actions and next push; {} if none


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


def make_env(name, physics="mjx", **overrides):
    """The env named `name` (a key of configs.CONFIGS) with config `overrides` applied."""
    return env_from_config(name, get_config(name, overrides), physics)


def env_from_config(name, config, physics="mjx"):
    """`physics` "mjx" steps MJX (jit, vmap, GPU) with the config's `mjx_impl`; "mujoco" steps plain MuJoCo (C, CPU)
    for sim-to-sim checks, deriving positions and sensors with MJX's JAX implementation."""
    if physics == "mujoco":
        config = dict(config, mjx_impl="jax")
    check_mjx_impl(config["mjx_impl"])
    mj_model = tasks.load_model(config)
    model_checks.check_model(mj_model, config)  # before anything compiles
    randomization.check(config, mj_model)
    task = tasks.TASKS[config["task"]](config, mj_model, jnp)
    return build_env(name, config, mj_model, task, physics)


def env_params(config):
    """The params `step` reads, from a config: its reward weights as float32 scalars."""
    return {k: jnp.float32(v) for k, v in config["reward_weights"].items()}


MJX_IMPLS = ("jax", "warp")


def check_mjx_impl(impl):
    """ConfigError unless MJX can run `impl` here. MuJoCo Warp needs the warp-lang package and, for speed, an NVIDIA
    GPU (MJX would run Warp's kernels on a CPU too, slowly: refused, since nothing here is tested that way)."""
    if impl not in MJX_IMPLS:
        raise ConfigError(f"mjx_impl '{impl}' is not one of: {', '.join(MJX_IMPLS)}")
    missing = [] if jax.default_backend() == "gpu" else [f"an NVIDIA GPU (JAX here runs on {jax.default_backend()})"]
    missing += [] if mjx_warp.WARP_INSTALLED else ["MuJoCo Warp (pip install warp-lang mujoco-warp==3.17.0)"]
    if impl == "warp" and missing:
        raise ConfigError(f"mjx_impl 'warp' needs {' and '.join(missing)}; mjx_impl 'jax' runs anywhere")


def put_model(mj_model, impl="jax"):
    """The MJX model (implementation `impl`) on this process's first device. MJX's default, jax.devices()[0], belongs
    to process 0 in a multi-host run (ppo_mjx.py --distributed), where other processes cannot address it."""
    return mjx.put_model(mj_model, device=jax.local_devices()[0], impl=impl)


def make_data(model, impl="jax"):
    """Fresh MJX data on this process's first device (see `put_model`); `model` is a MuJoCo model (Warp needs one)
    or, for the JAX implementation, an MJX model."""
    return mjx.make_data(model, device=jax.local_devices()[0], impl=impl)


# MJX's functions jitted once for the process, the model an argument: JAX then traces each once per model layout (every
# stage of a species shares one) and every program built from any env of that layout reuses the trace.
mjx_step, mjx_forward, mjx_kinematics = jax.jit(mjx.step), jax.jit(mjx.forward), jax.jit(mjx.kinematics)


def mjx_physics(n_substeps):
    """(model, data) -> data after `n_substeps` MJX steps of `model`."""

    def advance(model, data):
        def substep(data, _):
            return mjx_step(model, data), None

        return jax.lax.scan(substep, data, None, length=n_substeps)[0]

    return advance


def mujoco_physics(mj_model, n_substeps, model_fields=()):
    """(model, data) -> data after `n_substeps` steps of plain MuJoCo (C, float64, on the host through a callback); MJX
    then recomputes the derived quantities (positions, sensors) of the new state, so observations and rewards are the
    same functions of state as in training. The state crosses as float32 once per control step, and so do the
    `model_fields` of `model` (an MJX model) that randomization changes: each env steps its own draws."""
    host_model = copy.copy(mj_model) if model_fields else mj_model
    mj_data = mujoco.MjData(host_model)
    state_fields = ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time")

    def host_steps(*batch):
        batch = [np.asarray(x) for x in batch]
        state, fields = batch[:len(state_fields)], batch[len(state_fields):]
        size = max(x.shape[0] for x in batch)
        out = [np.empty((size,) + x.shape[1:], x.dtype) for x in state]
        for i in range(size):
            for field, x in zip(model_fields, fields):
                getattr(host_model, field)[:] = x[i % x.shape[0]]
            for field, x in zip(state_fields, state):
                setattr(mj_data, field, x[i % x.shape[0]])
            mujoco.mj_step(host_model, mj_data, nstep=n_substeps)
            for field, o in zip(state_fields, out):
                o[i] = getattr(mj_data, field)
        return tuple(out)

    def physics(model, data):
        state = tuple(getattr(data, field) for field in state_fields)
        shapes = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in state)
        fields = tuple(getattr(model, field) for field in model_fields)
        state = jax.pure_callback(host_steps, shapes, *state, *fields, vmap_method="expand_dims")
        return mjx_forward(model, data.replace(**dict(zip(state_fields, state))))

    return physics


PHYSICS = ("mjx", "mujoco")


def build_env(name, config, mj_model, task, physics="mjx"):
    """Wrap a Task into an Env: physics substeps, termination, NaN guard, time limit, pushes, domain randomization
    (randomization.py), auto-reset."""
    n_substeps = int(round(config["ctrl_dt"] / config["sim_dt"]))
    mjx_model = put_model(mj_model, config["mjx_impl"])
    plan = randomization.plan(config, mj_model)
    if physics == "mjx":
        advance = mjx_physics(n_substeps)
    else:
        advance = mujoco_physics(mj_model, n_substeps, tuple(plan.fields))
    blank = make_data(mj_model, config["mjx_impl"])
    zero_action = jnp.zeros(mj_model.nu)
    default_params = env_params(config)

    def kinematics(data, **fields):
        return mjx_kinematics(mjx_model, data.replace(**fields))

    def uniform_from(key, count):
        keys = iter([key] if count == 1 else jax.random.split(key, count))
        return lambda shape, low, high: jax.random.uniform(next(keys), shape, minval=low, maxval=high)

    def observe(data, prev_action, noise_key):
        obs = task.observe(data, prev_action)
        if plan.noise is None:
            return obs
        return obs + uniform_from(noise_key, 1)(obs.shape, -plan.noise, plan.noise)

    def reset(key):
        if plan.draws_episode:
            key, init_key, draw_key = jax.random.split(key, 3)
        else:
            key, init_key = jax.random.split(key)
        data = task.init(uniform_from(init_key, task.draws), kinematics, blank)
        episode, noise_key = {}, None
        if plan.draws_episode:
            draw_key, noise_key = jax.random.split(draw_key)
            episode = randomization.start_episode(plan, mj_model.nu, uniform_from(draw_key, len(plan.ranges) + 1), jnp)
        obs = observe(data, zero_action, noise_key)
        terms = task.reward_terms(data, zero_action, zero_action)
        info = {f"reward/{k}": jnp.zeros(()) for k in [*terms, "termination"]}
        info |= {k: jnp.zeros(()) for k in task.measure(data)} | {"nan_reset": jnp.zeros(())}
        info |= dict(push_speed=jnp.zeros(())) if plan.ranged_push else {}
        false = jnp.zeros((), bool)
        return EnvState(data, obs, jnp.zeros(()), false, false, obs, jnp.zeros((), jnp.int32), zero_action, key, info,
                        episode)

    def actuate(data, action, episode):
        """`data` with the controls of `action` as the motors see it: `action_delay` steps late, about the home pose
        shifted by `home_offset`; and the episode's record of recent actions."""
        ctrl, episode = randomization.controls(task.action_to_ctrl, action, episode, jnp)
        return data.replace(ctrl=ctrl), episode

    def push(data, key, time, episode):
        """Kick the free root joint sideways when a push is due (randomization.push; models with a free root only).
        Returns (data, episode, the push's speed or 0 for ranged pushes, else None)."""
        if not plan.push_interval:
            return data, episode, None
        kick, speed, episode = randomization.push(plan, time, episode, uniform_from(key, 3 if plan.ranged_push else 1),
                                                  jnp)
        return data.replace(qvel=data.qvel.at[:2].add(kick)), episode, speed if plan.ranged_push else None

    def step(state, action, params=None):
        weights = default_params if params is None else params
        action = jnp.clip(action, -1.0, 1.0)
        rng, push_key, reset_key = jax.random.split(state.rng, 3)
        noise_key = None
        if plan.noise is not None:
            rng, noise_key = jax.random.split(rng)
        data, episode = actuate(state.data, action, state.episode)
        data, episode, pushed = push(data, push_key, state.time, episode)
        if plan.fields:
            model = mjx_model.replace(**randomization.model_values(plan.fields, plan.where, episode, jnp))
        else:
            model = mjx_model
        data = advance(model, data)

        finite = jnp.all(jnp.isfinite(data.qpos)) & jnp.all(jnp.isfinite(data.qvel))
        failed = task.is_terminated(data) | ~finite
        terminated = failed | task.is_success(data)
        time = state.time + 1
        truncated = (time >= config["episode_length"]) & ~terminated
        terms = task.reward_terms(data, action, state.prev_action)
        terms = {k: jnp.where(finite, weights[k] * v, 0.0) for k, v in terms.items()}
        terms["termination"] = failed.astype(jnp.float32) * weights["termination"]  # float32 as from `reset`
        reward = sum(terms.values())
        final_obs = jnp.where(finite, observe(data, action, noise_key), 0.0)  # training never sees a NaN
        info = {f"reward/{k}": v for k, v in terms.items()}
        info |= {k: jnp.where(finite, v, 0.0) for k, v in task.measure(data).items()}
        info["nan_reset"] = (~finite).astype(jnp.float32)
        info |= {} if pushed is None else dict(push_speed=pushed)

        done = terminated | truncated
        fresh = reset(reset_key)
        data = jax.tree.map(lambda a, b: jnp.where(done, a, b), fresh.data, data)
        episode = jax.tree.map(lambda a, b: jnp.where(done, a, b), fresh.episode, episode)
        obs = jnp.where(done, fresh.obs, final_obs)
        time = jnp.where(done, 0, time)
        prev_action = jnp.where(done, zero_action, action)
        return EnvState(data, obs, reward, terminated, truncated, final_obs, time, prev_action, rng, info, episode)

    first = jax.eval_shape(reset, jax.random.key(0))
    terms = sorted(k.removeprefix("reward/") for k in first.info if k.startswith("reward/"))
    if terms != sorted(config["reward_weights"]):
        raise ConfigError(f"env '{name}': reward_weights has {', '.join(sorted(config['reward_weights']))} but the "
                          f"task's reward terms are {', '.join(terms)}")
    observation_size = int(first.obs.shape[-1])
    return Env(name, config, mj_model, observation_size, mj_model.nu, reset, step, default_params,
               task.episode_success)
