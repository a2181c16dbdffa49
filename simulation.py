"""The physics of one control step, as a function (model, data) -> data: MJX (its JAX or its Warp implementation) on
this process's first device, or plain MuJoCo in C on the host through a callback for sim-to-sim checks. Both leave the
new state with the kinematics of the state before the last substep (see `mujoco_physics`)."""

import copy

import jax
import mujoco
import numpy as np
from mujoco import mjx
from mujoco.mjx import warp as mjx_warp

from configs import ConfigError

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
    """(model, data) -> data after `n_substeps` steps of plain MuJoCo (C, float64, on the host through a callback), left
    as `mjx_physics` leaves it: the new state (positions, velocities, time), and the derived quantities (body and site
    poses, velocities, contacts, sensors) of the state before the last substep, which a step computes before it
    integrates; MJX recomputes those from that state. Observations and rewards are then the same functions of state as
    in training, and as play.py's after `mj_step`. The state crosses as float32 once per control step, and so do the
    `model_fields` of `model` (an MJX model) that randomization changes: each env steps its own draws."""
    host_model = copy.copy(mj_model) if model_fields else mj_model
    mj_data = mujoco.MjData(host_model)
    state_fields = ("qpos", "qvel", "act", "ctrl", "qacc_warmstart", "time")

    def host_steps(*batch):
        batch = [np.asarray(x) for x in batch]
        state, fields = batch[:len(state_fields)], batch[len(state_fields):]
        size = max(x.shape[0] for x in batch)
        before, after = ([np.empty((size,) + x.shape[1:], x.dtype) for x in state] for _ in range(2))
        for i in range(size):
            for field, x in zip(model_fields, fields):
                getattr(host_model, field)[:] = x[i % x.shape[0]]
            for field, x in zip(state_fields, state):
                setattr(mj_data, field, x[i % x.shape[0]])
            mujoco.mj_step(host_model, mj_data, nstep=n_substeps - 1)
            for field, o in zip(state_fields, before):
                o[i] = getattr(mj_data, field)
            mujoco.mj_step(host_model, mj_data)
            for field, o in zip(state_fields, after):
                o[i] = getattr(mj_data, field)
        return (*before, *after)

    def physics(model, data):
        state = tuple(getattr(data, field) for field in state_fields)
        shapes = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in state) * 2
        fields = tuple(getattr(model, field) for field in model_fields)
        stepped = jax.pure_callback(host_steps, shapes, *state, *fields, vmap_method="expand_dims")
        before, after = stepped[:len(state_fields)], stepped[len(state_fields):]
        derived = mjx_forward(model, data.replace(**dict(zip(state_fields, before))))
        return derived.replace(**dict(zip(state_fields, after)))

    return physics


PHYSICS = ("mjx", "mujoco")
