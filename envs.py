"""Functional MJX environments.

`make_env("trex_stage1", **overrides)` returns an `Env` whose `reset(key) -> EnvState` and
`step(state, action, params) -> EnvState` are pure, so they work under `jit` and `vmap`. `params` is any pytree the
step reads (here the reward weights, `env.default_params` by default): a learner passes it through unchanged, so one
compiled program serves runs whose weights differ. `build_env` holds what every env shares (physics substeps,
termination, NaN guard, time limit, pushes, auto-reset); a `tasks.Task` holds what differs (start state, observation,
rewards, success). The physics is MJX, or plain MuJoCo through a host callback for sim-to-sim checks.
"""

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
    info: dict  # per-transition scalars: weighted reward terms, task measures (before reset), nan_reset


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


def mjx_physics(mj_model, n_substeps, impl):
    """(data) -> data after `n_substeps` MJX steps of implementation `impl`."""
    mjx_model = put_model(mj_model, impl)

    def substep(data, _):
        return mjx_step(mjx_model, data), None

    return lambda data: jax.lax.scan(substep, data, None, length=n_substeps)[0]


def mujoco_physics(mj_model, n_substeps):
    """(data) -> data after `n_substeps` steps of plain MuJoCo (C, float64, on the host through a callback); MJX then
    recomputes the derived quantities (positions, sensors) of the new state, so observations and rewards are the same
    functions of state as in training. The state crosses as float32 once per control step."""
    mjx_model = put_model(mj_model)
    mj_data = mujoco.MjData(mj_model)
    state_fields = ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time")

    def host_steps(*batch):
        batch = [np.asarray(x) for x in batch]
        size = max(x.shape[0] for x in batch)
        out = [np.empty((size,) + x.shape[1:], x.dtype) for x in batch]
        for i in range(size):
            for field, x in zip(state_fields, batch):
                setattr(mj_data, field, x[i % x.shape[0]])
            mujoco.mj_step(mj_model, mj_data, nstep=n_substeps)
            for field, o in zip(state_fields, out):
                o[i] = getattr(mj_data, field)
        return tuple(out)

    def physics(data):
        state = tuple(getattr(data, field) for field in state_fields)
        shapes = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in state)
        state = jax.pure_callback(host_steps, shapes, *state, vmap_method="expand_dims")
        return mjx_forward(mjx_model, data.replace(**dict(zip(state_fields, state))))

    return physics


PHYSICS = ("mjx", "mujoco")


def build_env(name, config, mj_model, task, physics="mjx"):
    """Wrap a Task into an Env: physics substeps, termination, NaN guard, time limit, pushes, auto-reset."""
    n_substeps = int(round(config["ctrl_dt"] / config["sim_dt"]))
    if physics == "mjx":
        advance = mjx_physics(mj_model, n_substeps, config["mjx_impl"])
    else:
        advance = mujoco_physics(mj_model, n_substeps)
    mjx_model = put_model(mj_model, config["mjx_impl"])
    blank = make_data(mj_model, config["mjx_impl"])
    zero_action = jnp.zeros(mj_model.nu)
    default_params = env_params(config)

    def kinematics(data, **fields):
        return mjx_kinematics(mjx_model, data.replace(**fields))

    def reset(key):
        key, init_key = jax.random.split(key)
        init_keys = iter([init_key] if task.draws == 1 else jax.random.split(init_key, task.draws))

        def uniform(shape, low, high):
            return jax.random.uniform(next(init_keys), shape, minval=low, maxval=high)

        data = task.init(uniform, kinematics, blank)
        obs = task.observe(data, zero_action)
        terms = task.reward_terms(data, zero_action, zero_action)
        info = {f"reward/{k}": jnp.zeros(()) for k in [*terms, "termination"]}
        info |= {k: jnp.zeros(()) for k in task.measure(data)} | {"nan_reset": jnp.zeros(())}
        false = jnp.zeros((), bool)
        return EnvState(data, obs, jnp.zeros(()), false, false, obs, jnp.zeros((), jnp.int32), zero_action, key, info)

    def push(data, key, time):
        """Every `push_interval` steps kick the free root joint sideways (models with a free root only)."""
        if not config.get("push_interval"):
            return data
        angle = jax.random.uniform(key, (), minval=-jnp.pi, maxval=jnp.pi)
        kick = config["push_speed"] * jnp.array([jnp.cos(angle), jnp.sin(angle)])
        due = (time > 0) & (time % config["push_interval"] == 0)
        return data.replace(qvel=data.qvel.at[:2].add(jnp.where(due, kick, 0.0)))

    def step(state, action, params=None):
        weights = default_params if params is None else params
        action = jnp.clip(action, -1.0, 1.0)
        rng, push_key, reset_key = jax.random.split(state.rng, 3)
        data = push(state.data.replace(ctrl=task.action_to_ctrl(action)), push_key, state.time)
        data = advance(data)

        finite = jnp.all(jnp.isfinite(data.qpos)) & jnp.all(jnp.isfinite(data.qvel))
        failed = task.is_terminated(data) | ~finite
        terminated = failed | task.is_success(data)
        time = state.time + 1
        truncated = (time >= config["episode_length"]) & ~terminated
        terms = task.reward_terms(data, action, state.prev_action)
        terms = {k: jnp.where(finite, weights[k] * v, 0.0) for k, v in terms.items()}
        terms["termination"] = failed.astype(jnp.float32) * weights["termination"]  # float32 as from `reset`
        reward = sum(terms.values())
        final_obs = jnp.where(finite, task.observe(data, action), 0.0)  # training never sees a NaN
        info = {f"reward/{k}": v for k, v in terms.items()}
        info |= {k: jnp.where(finite, v, 0.0) for k, v in task.measure(data).items()}
        info["nan_reset"] = (~finite).astype(jnp.float32)

        done = terminated | truncated
        fresh = reset(reset_key)
        data = jax.tree.map(lambda a, b: jnp.where(done, a, b), fresh.data, data)
        obs = jnp.where(done, fresh.obs, final_obs)
        time = jnp.where(done, 0, time)
        prev_action = jnp.where(done, zero_action, action)
        return EnvState(data, obs, reward, terminated, truncated, final_obs, time, prev_action, rng, info)

    first = jax.eval_shape(reset, jax.random.key(0))
    terms = sorted(k.removeprefix("reward/") for k in first.info if k.startswith("reward/"))
    if terms != sorted(config["reward_weights"]):
        raise ConfigError(f"env '{name}': reward_weights has {', '.join(sorted(config['reward_weights']))} but the "
                          f"task's reward terms are {', '.join(terms)}")
    observation_size = int(first.obs.shape[-1])
    return Env(name, config, mj_model, observation_size, mj_model.nu, reset, step, default_params,
               task.episode_success)
