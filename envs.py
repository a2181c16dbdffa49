"""Functional MJX environments.

`make_env("trex_stage1", **overrides)` returns an `Env` whose `reset(key) -> EnvState` and `step(state, action) ->
EnvState` are pure, so they work under `jit` and `vmap`. `build_env` holds what every env shares (physics substeps,
termination, NaN guard, time limit, auto-reset); a `Task` holds what differs (start state, observation, rewards).
`evaluation_rollout` runs a policy for one episode per env and reports the task's metrics.
"""

import contextlib
import io
import os
from dataclasses import dataclass
from typing import Callable

import jax
import jax.numpy as jnp
import mujoco
import numpy as np
from flax import struct

with contextlib.redirect_stdout(io.StringIO()):  # MJX prints "Failed to import warp" without the optional Warp backend
    from mujoco import mjx
    from mujoco.mjx import warp as mjx_warp

import model_checks
import rewards
from configs import ConfigError, get_config

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
TARGET_OBS_RANGE = 10.0  # (m) farther targets are observed at this distance, in their direction


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
    info: dict  # per-transition scalars: weighted reward terms, task metrics (before reset), nan_reset


@dataclass(frozen=True)
class Task:
    """What differs between envs; `build_env` wraps it into an Env."""

    init: Callable  # (key) -> mjx.Data: a randomized start state with positions computed
    observe: Callable  # (data, prev_action) -> observation vector
    action_to_ctrl: Callable  # (action in [-1, 1]) -> actuator controls
    reward_terms: Callable  # (data, action, prev_action) -> {name: unweighted term}; termination is added by the env
    is_terminated: Callable  # (data) -> bool: the episode failed (the env adds the `termination` penalty)
    measure: Callable  # (data) -> {name: scalar}: metrics logged during training and read by evaluation
    is_success: Callable = lambda data: jnp.zeros((), bool)  # (data) -> bool: the episode ends, its goal reached


@dataclass(frozen=True)
class Env:
    name: str
    config: dict
    mj_model: mujoco.MjModel
    observation_size: int
    action_size: int
    reset: Callable  # (key) -> EnvState
    step: Callable  # (EnvState, action, reward_weights=None) -> EnvState; weights default to the config's


def make_env(name, physics="mjx", **overrides):
    """The env named `name` (a key of configs.CONFIGS) with config `overrides` applied."""
    return env_from_config(name, get_config(name, overrides), physics)


def env_from_config(name, config, physics="mjx"):
    """`physics` "mjx" steps MJX (jit, vmap, GPU) with the config's `mjx_impl`; "mujoco" steps plain MuJoCo (C, CPU)
    for sim-to-sim checks, deriving positions and sensors with MJX's JAX implementation."""
    if physics == "mujoco":
        config = dict(config, mjx_impl="jax")
    check_mjx_impl(config["mjx_impl"])
    mj_model = load_model(config)
    model_checks.check_model(mj_model, config)  # before anything compiles
    task = TASKS[config["task"]](config, mj_model, put_model(mj_model, config["mjx_impl"]))
    return build_env(name, config, mj_model, task, physics)


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


def load_model(config):
    """The MJCF model with the physics timestep taken from the config, plus a mocap body `target` (a translucent
    sphere of the success radius, never colliding) that the tasks place at every reset: the stand point, the far
    point that sets the heading, or the prey/food. The species' MJCF files stay free of task objects."""
    path = os.path.join(MODELS_DIR, config["model"])
    try:
        spec = mujoco.MjSpec.from_file(path)
        target = spec.worldbody.add_body(name="target", mocap=True)
        target.add_site(name="target", type=mujoco.mjtGeom.mjGEOM_SPHERE,
                        size=[config.get("success_radius", 0.05), 0, 0], rgba=[0.9, 0.2, 0.1, 0.5])
        mj_model = spec.compile()
    except ValueError as error:  # MuJoCo's parser and compiler: no file, bad XML, a range it cannot infer, ...
        raise ConfigError(f"{path}: {str(error).strip().splitlines()[0]}") from None
    mj_model.opt.timestep = config["sim_dt"]
    return mj_model


def mjx_physics(mj_model, n_substeps, impl):
    """(data) -> data after `n_substeps` MJX steps of implementation `impl`."""
    mjx_model = put_model(mj_model, impl)

    def substep(data, _):
        return mjx.step(mjx_model, data), None

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
        return mjx.forward(mjx_model, data.replace(**dict(zip(state_fields, state))))

    return physics


PHYSICS = ("mjx", "mujoco")


def build_env(name, config, mj_model, task, physics="mjx"):
    """Wrap a Task into an Env: physics substeps, termination, NaN guard, time limit, pushes, auto-reset."""
    n_substeps = int(round(config["ctrl_dt"] / config["sim_dt"]))
    if physics == "mjx":
        advance = mjx_physics(mj_model, n_substeps, config["mjx_impl"])
    else:
        advance = mujoco_physics(mj_model, n_substeps)
    zero_action = jnp.zeros(mj_model.nu)

    def reset(key):
        key, init_key = jax.random.split(key)
        data = task.init(init_key)
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

    def step(state, action, reward_weights=None):
        """`reward_weights` ({term: weight}, arrays allowed) lets a sweep vary the weights inside one program."""
        weights = config["reward_weights"] if reward_weights is None else reward_weights
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
    return Env(name, config, mj_model, observation_size, mj_model.nu, reset, step)


def lowest_point(data, geom_ids, geom_type, geom_size):
    """Lowest world z over the given sphere, capsule, ellipsoid or box geoms (positions must be computed)."""
    rot_z = data.geom_xmat[geom_ids, 2, :]  # row 2: world z of each local axis
    size = geom_size[geom_ids]
    depth = jnp.select(
        [geom_type == mujoco.mjtGeom.mjGEOM_SPHERE, geom_type == mujoco.mjtGeom.mjGEOM_CAPSULE,
         geom_type == mujoco.mjtGeom.mjGEOM_ELLIPSOID],
        [size[:, 0], size[:, 0] + jnp.abs(size[:, 1] * rot_z[:, 2]), jnp.linalg.norm(size * rot_z, axis=-1)],
        jnp.sum(jnp.abs(size * rot_z), axis=-1),  # box
    )
    return jnp.min(data.geom_xpos[geom_ids, 2] - depth)


def rotate_yaw(yaw, quat):
    """`quat` (w, x, y, z) turned by `yaw` radians about the world z axis."""
    c, s = jnp.cos(yaw / 2), jnp.sin(yaw / 2)
    w, x, y, z = quat
    return jnp.array([c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w])


def legged_task(config, mj_model, mjx_model):
    """One of the three curriculum stages (`config["task"]`: balance, locomotion, behaviour) for any species model
    that follows the model conventions (README, "Adding a species"). Every stage places the mocap `target` (see
    `load_model`) at reset and observes it the same way, so a policy carries over from stage to stage:
    balance - the target is the start position: stand there under pushes;
    locomotion - the target is `command_distance` away along a commanded heading: walk toward it;
    behaviour - the target is `target_distance` ahead, up to `target_lateral` aside, `target_height` up: bring a tip
    site (`tip_sites`) within `success_radius` of it, which ends the episode with the success bonus."""
    stage = config["task"]
    home = mj_model.keyframe("home")
    qpos_home, ctrl_home = jnp.array(home.qpos), jnp.array(home.ctrl)
    ctrl_low, ctrl_high = jnp.array(mj_model.actuator_ctrlrange.T)
    joint_low, joint_high = jnp.array(mj_model.jnt_range[1:].T)  # every joint after the free root is a hinge
    pelvis = mj_model.body("pelvis").id
    head = mj_model.body("head").id
    target_mocap = mj_model.body_mocapid[mj_model.body("target").id]
    tips = jnp.array([mj_model.site(name).id for name in config.get("tip_sites", ())], int)
    floor_geoms = [i for i in range(mj_model.ngeom) if mj_model.geom_type[i] != mujoco.mjtGeom.mjGEOM_PLANE
                   and (mj_model.geom_contype[i] or mj_model.geom_conaffinity[i])]
    floor_geoms = jnp.array(floor_geoms)
    geom_type, geom_size = mj_model.geom_type[floor_geoms], jnp.array(mj_model.geom_size)
    touch_adr = jnp.array([mj_model.sensor_adr[i] for i in range(mj_model.nsensor)
                           if mj_model.sensor_type[i] == mujoco.mjtSensor.mjSENS_TOUCH])
    template = make_data(mj_model, config["mjx_impl"])
    home_data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, home_data, home.id)
    mujoco.mj_kinematics(mj_model, home_data)
    home_up = jnp.array(home_data.xmat[pelvis].reshape(3, 3)[2])  # world up in the pelvis frame at home
    home_height = float(home.qpos[2])

    def place_target(key, start, yaw):
        """The target's world position for an episode starting with the pelvis at `start`, facing `yaw`."""
        if stage == "balance":
            return start
        if stage == "locomotion":
            heading = yaw + jax.random.uniform(key, (), minval=-1.0, maxval=1.0) * config["heading_range"]
            return start + config["command_distance"] * jnp.array([jnp.cos(heading), jnp.sin(heading), 0.0])
        distance, lateral, height = jax.random.uniform(
            key, (3,), minval=jnp.array([config["target_distance"][0], -config["target_lateral"],
                                         config["target_height"][0]]),
            maxval=jnp.array([config["target_distance"][1], config["target_lateral"], config["target_height"][1]]))
        ahead = jnp.array([jnp.cos(yaw), jnp.sin(yaw)])
        left = jnp.array([-jnp.sin(yaw), jnp.cos(yaw)])
        return jnp.append(start[:2] + distance * ahead + lateral * left, height)

    def init(key):
        noise_key, yaw_key, target_key = jax.random.split(key, 3)
        noise = config["reset_joint_noise"]
        joints = qpos_home[7:] + jax.random.uniform(noise_key, qpos_home[7:].shape, minval=-noise, maxval=noise)
        yaw = jax.random.uniform(yaw_key, (), minval=-jnp.pi, maxval=jnp.pi) * config["reset_yaw"]
        qpos = jnp.concatenate([qpos_home[:3], rotate_yaw(yaw, qpos_home[3:7]), jnp.clip(joints, joint_low, joint_high)])
        data = mjx.kinematics(mjx_model, template.replace(qpos=qpos, ctrl=ctrl_home))
        # Rest the lowest foot point exactly on the floor: spawning by height alone penetrates it.
        qpos = qpos.at[2].add(-lowest_point(data, floor_geoms, geom_type, geom_size))
        target = place_target(target_key, qpos[:3], yaw)
        return mjx.kinematics(mjx_model, data.replace(qpos=qpos, mocap_pos=data.mocap_pos.at[target_mocap].set(target)))

    def facing(data):
        """Unit horizontal direction of the pelvis x axis."""
        forward = data.xmat[pelvis, :2, 0]
        return forward / (jnp.linalg.norm(forward) + 1e-6)

    def to_target(data):
        """(target minus pelvis position, unit horizontal direction from the pelvis to the target)."""
        offset = data.mocap_pos[target_mocap] - data.qpos[:3]
        return offset, offset[:2] / (jnp.linalg.norm(offset[:2]) + 1e-6)

    def observe(data, prev_action):
        rot = data.xmat[pelvis]
        ahead = facing(data)
        offset, _ = to_target(data)
        horizontal = jnp.array([ahead @ offset[:2], ahead[0] * offset[1] - ahead[1] * offset[0]])  # ahead, left
        horizontal *= jnp.minimum(1.0, TARGET_OBS_RANGE / (jnp.linalg.norm(horizontal) + 1e-6))
        return jnp.concatenate([
            -rot[2],  # gravity direction in the pelvis frame
            data.qpos[2:3],  # pelvis height
            rot.T @ data.qvel[:3],  # pelvis linear velocity, pelvis frame
            data.qvel[3:6],  # pelvis angular velocity, pelvis frame
            data.qpos[7:] - qpos_home[7:],  # joint angles relative to home
            data.qvel[6:],  # joint velocities
            (data.sensordata[touch_adr] > 1.0).astype(jnp.float32),  # foot contacts
            prev_action,
            horizontal,  # target ahead and to the left (m) in the level pelvis frame, at most TARGET_OBS_RANGE away
            offset[2:],  # target height above the pelvis (m)
        ])

    def action_to_ctrl(action):
        """Action 0 holds the home pose; +-1 reaches `action_scale` of the way to each control limit."""
        reach = jnp.where(action > 0, ctrl_high - ctrl_home, ctrl_home - ctrl_low)
        return ctrl_home + config["action_scale"] * action * reach

    def upright(data):
        """Cosine of the pelvis tilt away from its home attitude."""
        return data.xmat[pelvis, 2] @ home_up

    def tip_distance(data):
        return jnp.min(jnp.linalg.norm(data.site_xpos[tips] - data.mocap_pos[target_mocap], axis=-1))

    def is_success(data):
        return tip_distance(data) < config["success_radius"] if stage == "behaviour" else jnp.zeros((), bool)

    def reward_terms(data, action, prev_action):
        upright_height = rewards.upright_height(data.qpos[2], home_height, config["height_sigma"], upright(data))
        terms = dict(
            upright_height=upright_height,
            posture=upright_height * rewards.posture(data.qpos[7:], qpos_home[7:], config["posture_sigma"]),
            ang_vel=rewards.squared_norm(data.qvel[3:6]),
            action_rate=rewards.squared_norm(action - prev_action),
            torque=rewards.squared_norm(data.actuator_force),
        )
        if stage == "balance":
            return terms | dict(lin_vel=rewards.squared_norm(data.qvel[:2]))
        _, heading = to_target(data)
        terms |= dict(forward_speed=rewards.capped_speed(data.qvel[:2], heading, config["target_speed"]),
                      facing=facing(data) @ heading)
        if stage == "locomotion":
            return terms | dict(lateral_speed=rewards.squared_norm(rewards.across(data.qvel[:2], heading)))
        return terms | dict(proximity=rewards.proximity(tip_distance(data), config["proximity_sigma"]),
                            success=is_success(data).astype(jnp.float32))

    def is_terminated(data):
        return rewards.fallen(data.qpos[2], data.xpos[head, 2], upright(data), config["min_pelvis_height"],
                              config["min_head_height"], config["max_tilt"])

    def measure(data):
        heading = facing(data) if stage == "balance" else to_target(data)[1]
        metrics = dict(pelvis_height=data.qpos[2], forward_speed=data.qvel[:2] @ heading)
        if stage == "balance":
            return metrics | dict(standing=(data.qpos[2] >= config["standing_height"]).astype(jnp.float32))
        if stage == "behaviour":
            return metrics | dict(tip_distance=tip_distance(data), success=is_success(data).astype(jnp.float32))
        return metrics

    return Task(init, observe, action_to_ctrl, reward_terms, is_terminated, measure, is_success)


TASKS = {"balance": legged_task, "locomotion": legged_task, "behaviour": legged_task}


# ---------------------------------------------------------------- evaluation


def zero_policy(env):
    """(obs, key) -> action 0 (hold the home pose): the do-nothing baseline."""
    return lambda obs, key: jnp.zeros(obs.shape[:-1] + (env.action_size,))


def evaluation_rollout(env, policy, key, num_episodes, reward_weights=None):
    """`policy` ((obs, key) -> action) for one episode in each of `num_episodes` envs; traceable. The policy's keys
    come from `key` apart from the envs' keys, so starts and pushes do not depend on the policy. Returns (episodes,
    poses): per episode its return, length, whether it reached the time limit, each task metric at its last step and
    its mean over the episode (`<name>_mean`); and poses [steps, episodes, nq + 3 nmocap], qpos then the mocap
    (target) positions, for rendering (valid below each length)."""
    measures = [k for k in jax.eval_shape(env.reset, key).info if not k.startswith("reward/") and k != "nan_reset"]

    def _eval_step(carry, policy_key):
        state, ended, result = carry
        poses = jnp.concatenate([state.data.qpos, state.data.mocap_pos.reshape(num_episodes, -1)], axis=-1)
        state = jax.vmap(env.step, in_axes=(0, 0, None))(state, policy(state.obs, policy_key), reward_weights)
        live = ~ended
        ends_now = live & (state.terminated | state.truncated)
        length = result["episode_length"] + live
        result = dict(
            episode_return=result["episode_return"] + jnp.where(live, state.reward, 0.0),
            episode_length=length,
            reached_time_limit=jnp.where(ends_now, state.truncated, result["reached_time_limit"]),
            **{k: jnp.where(ends_now, state.info[k], result[k]) for k in measures},
            **{f"{k}_mean": result[f"{k}_mean"] + jnp.where(live, state.info[k] - result[f"{k}_mean"], 0.0) / length
               for k in measures},
        )
        return (state, ended | ends_now, result), poses

    state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
    zeros = jnp.zeros(num_episodes)
    result = dict(episode_return=zeros, episode_length=zeros, reached_time_limit=zeros.astype(bool),
                  **{k: zeros for k in measures}, **{f"{k}_mean": zeros for k in measures})
    policy_keys = jax.random.split(jax.random.fold_in(key, 1), env.config["episode_length"])
    (_, _, result), poses = jax.lax.scan(_eval_step, (state, zeros.astype(bool), result), policy_keys)
    return result, poses


def evaluate(env, policy, key, num_episodes):
    """`evaluation_rollout`, compiled and brought to the host as numpy arrays."""
    return jax.device_get(jax.jit(lambda key: evaluation_rollout(env, policy, key, num_episodes))(key))


def evaluation_summary(episodes):
    """Means over episodes. `success_rate`: for tasks with a goal, the share of episodes that ended reaching it; for
    standing tasks, the share that reached the time limit with the pelvis at standing height."""
    summary = {k: float(np.mean(v)) for k, v in episodes.items()}
    if "success" in episodes:
        summary["success_rate"] = float(np.mean(episodes["success"] > 0))
    elif "standing" in episodes:
        summary["success_rate"] = float(np.mean(episodes["reached_time_limit"] & (episodes["standing"] > 0)))
    return summary


def evaluation_metric_names(env):
    """The metric names of `env`'s evaluation summaries (eval.json), found by tracing, not running, an evaluation."""
    shapes = jax.eval_shape(lambda key: evaluation_rollout(env, zero_policy(env), key, 1)[0], jax.random.key(0))
    return sorted(evaluation_summary({k: np.zeros(s.shape, s.dtype) for k, s in shapes.items()}))
