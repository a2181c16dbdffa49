"""The legged tasks: what differs between envs, as `Task`s that envs.build_env wraps into functional envs.

Three task factories, one per curriculum stage, registered by name in `TASKS` (a config's `task` key):
    balance     - the target marks the start position: stand there under pushes;
    velocity    - follow the velocity command (forward, sideways, turning; commands.py) that the env draws at reset
                  and redraws at random waits;
    behaviour   - the target is `target_distance` ahead, up to `target_lateral` aside, `target_height` up: bring a tip
                  site (`tip_sites`) within `success_radius` of it, which ends the episode with the success bonus.
Each is `factory(config, mj_model, xp) -> Task` and works for any species model that follows the model
conventions (README, "Adding a species"; checked by model_checks.py). They share one `Body` (the model's names and
home pose, looked up once) and its functions: start state, observation, action-to-control, the posture reward terms,
falling. Everything here runs on the arrays of `xp`: jax.numpy in the envs (envs.py, traced, float32) or NumPy on a
plain `mujoco.MjData` (play.py, float64, without JAX), so the exported policy sees the observation it was trained on.
This module imports no JAX; randomness and kinematics come in as callbacks (`Task.init`). Every stage places the
mocap `target` (added by `load_model`) at reset and observes it, and the velocity command held in the physics
state's `userdata` (zero where a stage has none), the same way, so a policy carries over from stage to stage. Each
task says what success is (`is_success` ends an episode, `episode_success` scores one in evaluation) and which metrics
it measures. Adding a task is adding a factory here.
"""

import functools
import os
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable, Optional

import mujoco
import numpy as np

import commands
import rewards
from configs import ConfigError

MODELS_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
TARGET_OBS_RANGE = 10.0  # (m) farther targets are observed at this distance, in their direction
APPROACH_TURN_RADIUS = 2.5  # (m) stage 3's approach command turns at most its top speed over this (2 m/s: 0.8 rad/s)
HEADING_ERROR_LIMIT = 1.0  # (rad) the heading reference stays this near the pelvis heading: the integral's anti-windup


@dataclass(frozen=True)
class Task:
    """What differs between envs; envs.build_env wraps it into an Env."""

    # (uniform, kinematics, data) -> a randomized start from `data` (blank data of the model), positions computed;
    # uniform(shape, low, high) draws (`draws` times), kinematics(data, **fields) is `data` with `fields` set and
    # positions recomputed (MJX or MuJoCo)
    init: Callable
    observe: Callable  # (data, prev_action) -> observation vector
    action_to_ctrl: Callable  # (action in [-1, 1]) -> actuator controls
    reward_terms: Callable  # (data, action, prev_action) -> {name: unweighted term}; termination is added by the env
    is_terminated: Callable  # (data) -> bool: the episode failed (the env adds the `termination` penalty)
    measure: Callable  # (data) -> {name: scalar}: metrics logged during training, recorded per episode in evaluation
    is_success: Callable = lambda data: False  # (data) -> bool: the episode ends, its goal reached
    # (an episode's record: its measures at its last step, reached_time_limit, ...) -> bool: counted in evaluation's
    # success_rate; None: the task has no success to count.
    episode_success: Optional[Callable] = None
    # (data) -> what the body's state holds that its sensors do not give the policy, for a privileged critic
    # (critic.CRITIC_GROUPS); None: nothing
    privileged: Optional[Callable] = None
    # (data, command, fresh, steps) -> the `userdata` that holds `command` (`command_userdata`)
    hold_command: Callable = lambda data, command, fresh, steps: command
    mirror: Any = None  # `Mirror`: the body's left-right reflection, built where training asks (`symmetric`); or None
    draws: int = 3  # how many times `init` calls `uniform`: the env splits the start's key so (one draw: the key as is)


def load_model(config):
    """The species' MJCF model with the physics timestep and solver iterations taken from the config, plus a mocap
    body `target` (a translucent sphere of the success radius, never colliding) that the tasks place at every reset:
    the stand point or the prey/food; and room in `userdata` for the velocity command (commands.py), and with
    `observe_heading` its heading reference (`command_userdata`). The species' MJCF files stay free of task objects."""
    path = os.path.join(MODELS_DIR, config["model"])
    try:
        spec = mujoco.MjSpec.from_file(path)
        spec.nuserdata = commands.SIZE + int(config.get("observe_heading", False))
        target = spec.worldbody.add_body(name="target", mocap=True)
        target.add_site(name="target", type=mujoco.mjtGeom.mjGEOM_SPHERE,
                        size=[config.get("success_radius", 0.05), 0, 0], rgba=[0.9, 0.2, 0.1, 0.5])
        mj_model = spec.compile()
    except ValueError as error:  # MuJoCo's parser and compiler: no file, bad XML, a range it cannot infer, ...
        raise ConfigError(f"{path}: {str(error).strip().splitlines()[0]}") from None
    mj_model.opt.timestep = config["sim_dt"]
    iterations = config.get("solver_iterations")  # None in policies exported before the setting: the MJCF's
    if iterations is not None:
        if not isinstance(iterations, int) or iterations < 1:
            raise ConfigError(f"solver_iterations = {iterations} is not a whole number of at least 1")
        mj_model.opt.iterations = iterations
    return mj_model


@dataclass(frozen=True)
class Body:
    """What the tasks read of a species model, looked up once: ids, the home pose, limits, the colliding foot geoms;
    arrays are `xp`'s (float32 under JAX, as the MJX data is)."""

    config: dict
    xp: ModuleType  # the array library: jax.numpy or numpy
    qpos_home: Any
    ctrl_home: Any
    ctrl_low: Any
    ctrl_high: Any
    joint_low: Any  # every joint after the free root is a hinge
    joint_high: Any
    pelvis: int  # body ids
    head: int
    target_mocap: int  # mocap index of the target
    tips: Any  # site ids of `tip_sites`
    tip_bodies: Any  # the body of each tip site
    tip_roots: Any  # the root body of each tip's kinematic tree (MuJoCo's velocities `cvel` are taken about its COM)
    foot_geoms: Any  # geoms that collide, besides the floor plane
    foot_geom_type: Any
    geom_size: Any
    touch_adr: Any  # sensordata addresses of the touch sensors
    weight: float  # the nominal body's weight (N)
    home_up: Any  # world up in the pelvis frame at home
    home_height: float  # pelvis height at home (m)


def legged_body(config, mj_model, xp):
    """The `Body` of a model that follows the conventions (model_checks.py), with arrays of `xp`."""
    if config.get("contact_weight_share", 0.0) < 0:
        raise ConfigError(f"contact_weight_share: 0 (binary contacts) or a share of the body's weight above 0, "
                          f"got {config['contact_weight_share']}")
    home = mj_model.keyframe("home")
    ctrl_low, ctrl_high = xp.asarray(mj_model.actuator_ctrlrange.T)
    joint_low, joint_high = xp.asarray(mj_model.jnt_range[1:].T)
    feet = [i for i in range(mj_model.ngeom) if mj_model.geom_type[i] != mujoco.mjtGeom.mjGEOM_PLANE
            and (mj_model.geom_contype[i] or mj_model.geom_conaffinity[i])]
    home_data = mujoco.MjData(mj_model)
    mujoco.mj_resetDataKeyframe(mj_model, home_data, home.id)
    mujoco.mj_kinematics(mj_model, home_data)
    pelvis = mj_model.body("pelvis").id
    tips = np.asarray([mj_model.site(name).id for name in config.get("tip_sites", ())], int)
    return Body(
        config, xp, xp.asarray(home.qpos), xp.asarray(home.ctrl), ctrl_low, ctrl_high, joint_low, joint_high,
        pelvis, mj_model.body("head").id, mj_model.body_mocapid[mj_model.body("target").id], xp.asarray(tips),
        xp.asarray(mj_model.site_bodyid[tips]), xp.asarray(mj_model.body_rootid[mj_model.site_bodyid[tips]]),
        xp.asarray(feet),
        mj_model.geom_type[feet], xp.asarray(mj_model.geom_size),
        xp.asarray([mj_model.sensor_adr[i] for i in range(mj_model.nsensor)
                    if mj_model.sensor_type[i] == mujoco.mjtSensor.mjSENS_TOUCH]),
        float(mj_model.body_mass.sum() * np.linalg.norm(mj_model.opt.gravity)),
        xp.asarray(home_data.xmat[pelvis].reshape(3, 3)[2]), float(home.qpos[2]))


def pelvis_rotation(body, data):
    """The pelvis frame's 3x3 rotation matrix (MJX keeps it as 3x3, MuJoCo's MjData as 9 numbers)."""
    return body.xp.reshape(data.xmat[body.pelvis], (3, 3))


def lowest_point(body, data):
    """Lowest world z over the colliding foot geoms (sphere, capsule, ellipsoid or box; positions must be computed)."""
    xp, geom_ids, geom_type = body.xp, body.foot_geoms, body.foot_geom_type
    rot_z = xp.reshape(data.geom_xmat, (-1, 3, 3))[geom_ids, 2, :]  # row 2: world z of each local axis
    size = body.geom_size[geom_ids]
    depth = xp.select(
        [geom_type == mujoco.mjtGeom.mjGEOM_SPHERE, geom_type == mujoco.mjtGeom.mjGEOM_CAPSULE,
         geom_type == mujoco.mjtGeom.mjGEOM_ELLIPSOID],
        [size[:, 0], size[:, 0] + xp.abs(size[:, 1] * rot_z[:, 2]), xp.linalg.norm(size * rot_z, axis=-1)],
        xp.sum(xp.abs(size * rot_z), axis=-1),  # box
    )
    return xp.min(data.geom_xpos[geom_ids, 2] - depth)


def rotate_yaw(xp, yaw, quat):
    """`quat` (w, x, y, z) turned by `yaw` radians about the world z axis."""
    c, s = xp.cos(yaw / 2), xp.sin(yaw / 2)
    w, x, y, z = quat
    return xp.stack([c * w - s * z, c * x - s * y, c * y + s * x, c * z + s * w])


def start(body, place_target, uniform, kinematics, data):
    """The home pose with joint noise and a random heading, its lowest foot point resting on the floor, and the
    target where `place_target(uniform, start position, yaw)` puts it (see `Task.init` for the callbacks)."""
    xp, config, qpos_home = body.xp, body.config, body.qpos_home
    noise = config["reset_joint_noise"]
    joints = qpos_home[7:] + uniform(qpos_home[7:].shape, -noise, noise)
    yaw = uniform((), -xp.pi, xp.pi) * config["reset_yaw"]
    qpos = xp.concatenate([qpos_home[:3], rotate_yaw(xp, yaw, qpos_home[3:7]),
                           xp.clip(joints, body.joint_low, body.joint_high)])
    data = kinematics(data, qpos=qpos, ctrl=body.ctrl_home)
    # Rest the lowest foot point exactly on the floor: spawning by height alone penetrates it.
    qpos = xp.concatenate([qpos[:2], qpos[2:3] - lowest_point(body, data), qpos[3:]])
    target = place_target(uniform, qpos[:3], yaw)
    is_target = (xp.arange(data.mocap_pos.shape[0]) == body.target_mocap)[:, None]
    return kinematics(data, qpos=qpos, mocap_pos=xp.where(is_target, target, data.mocap_pos))


def facing(body, data):
    """Unit horizontal direction of the pelvis x axis."""
    forward = pelvis_rotation(body, data)[:2, 0]
    return forward / (body.xp.linalg.norm(forward) + 1e-6)


def heading(body, data):
    """The pelvis heading (rad, to the left of world x)."""
    ahead = facing(body, data)
    return body.xp.arctan2(ahead[1], ahead[0])


def heading_error(body, data):
    """How far (rad, to the left) the pelvis heading is short of the heading reference in `userdata`
    (`command_userdata`), wrapped to [-pi, pi] and clipped to HEADING_ERROR_LIMIT."""
    xp = body.xp
    short = data.userdata[commands.SIZE] - heading(body, data)
    return xp.clip(xp.arctan2(xp.sin(short), xp.cos(short)), -HEADING_ERROR_LIMIT, HEADING_ERROR_LIMIT)


def command_userdata(body, data, command, fresh, steps):
    """The `userdata` holding `command` for the next `steps` control steps (1 each step, 0 at a start): the command,
    and with `observe_heading` the heading reference, the integral of the commanded yaw rate. It is the heading now,
    plus the heading error unless the command is `fresh` (a new draw starts from where the body faces), plus `steps`
    control steps of the commanded yaw rate, so that it lags or leads the body by at most HEADING_ERROR_LIMIT."""
    if not body.config.get("observe_heading", False):
        return command
    xp = body.xp
    carried = xp.where(fresh, 0.0, heading_error(body, data))
    reference = heading(body, data) + carried + steps * body.config["ctrl_dt"] * command[2]
    return xp.concatenate([command, reference[None]])


def heading_frame(xp, ahead, offset):
    """The horizontal vector `offset` (world x, y) in the level frame facing the unit vector `ahead`: (ahead, left)."""
    return xp.stack([ahead @ offset, ahead[0] * offset[1] - ahead[1] * offset[0]])


def to_target(body, data):
    """(target minus pelvis position, unit horizontal direction from the pelvis to the target)."""
    offset = data.mocap_pos[body.target_mocap] - data.qpos[:3]
    return offset, offset[:2] / (body.xp.linalg.norm(offset[:2]) + 1e-6)


def upright(body, data):
    """Cosine of the pelvis tilt away from its home attitude."""
    return pelvis_rotation(body, data)[2] @ body.home_up


def tip_distance(body, data):
    """Distance (m) from the target to the nearest tip site."""
    xp = body.xp
    return xp.min(xp.linalg.norm(data.site_xpos[body.tips] - data.mocap_pos[body.target_mocap], axis=-1))


def nearest_tip(body, data):
    """(index among `tips` of the tip nearest the target, the offset (m) from that tip to the target)."""
    xp = body.xp
    offsets = data.mocap_pos[body.target_mocap] - data.site_xpos[body.tips]
    nearest = xp.argmin(xp.linalg.norm(offsets, axis=-1))
    return nearest, offsets[nearest]


def tip_closing_speed(body, data):
    """Speed (m/s) at which the tip nearest the target closes on it (`rewards.closing_speed`); velocities must be
    computed. Integrated over an episode it is the distance the tip came, so standing near the target earns nothing."""
    nearest, offset = nearest_tip(body, data)
    spin, velocity = data.cvel[body.tip_bodies, :3], data.cvel[body.tip_bodies, 3:]  # about the root's subtree COM
    velocity = velocity + body.xp.cross(spin, data.site_xpos[body.tips] - data.subtree_com[body.tip_roots])
    return rewards.closing_speed(velocity[nearest], offset)


def approach_command(body, data, ahead, horizontal):
    """Stage 3's command to walk to the target (`approach_command` > 0), a velocity command as stage 2 follows:
    forward as fast as the nearest tip is short of the target ahead (m to m/s), at most `approach_command` m/s and
    never backward; no sideways step; the yaw rate of the bearing `horizontal` (the target in the level frame facing
    the pelvis' unit horizontal direction `ahead`) in rad, at most the top speed over APPROACH_TURN_RADIUS. Zero once
    the tip is level with the target: stand and strike."""
    xp = body.xp
    _, offset = nearest_tip(body, data)
    tip_ahead = heading_frame(xp, ahead, offset[:2])[0]
    top_speed = body.config["approach_command"]
    forward = xp.clip(tip_ahead, 0.0, top_speed)
    top_yaw_rate = top_speed / APPROACH_TURN_RADIUS
    bearing = xp.arctan2(horizontal[1], horizontal[0])
    return xp.stack([forward, xp.zeros_like(forward), xp.clip(bearing, -top_yaw_rate, top_yaw_rate)])


# The observation's groups, in order, and what each is (export.py writes them into policy.json).
OBSERVATION_GROUPS = dict(
    gravity="gravity direction in the pelvis frame (unit vector)",
    pelvis_height="pelvis height above the floor (m)",
    linear_velocity="pelvis linear velocity in the pelvis frame (m/s)",
    angular_velocity="pelvis angular velocity in the pelvis frame (rad/s)",
    joint_angles="hinge joint angles relative to the home pose (rad), in model order",
    joint_velocities="hinge joint velocities (rad/s), in model order",
    foot_contacts="per foot touch sensor: 1 where it reads more than 1 N, else 0; with contact_weight_share, its force "
                  "over that share of the body's weight, clipped to 1",
    previous_action="the previous action (clipped to [-1, 1]); 0 at the first step",
    command="the velocity command: forward and left speed (m/s), yaw rate to the left (rad/s); in stage 3 with "
            "approach_command, one toward the target; 0 without one",
    heading_error=f"the heading reference (the commanded yaw rate integrated since the command was drawn) less the "
                  f"pelvis heading (rad, to the left), within {HEADING_ERROR_LIMIT:g}; 0 without commands",
    target_horizontal=f"target ahead and left (m) in the level pelvis frame, at most {TARGET_OBS_RANGE:g} m away",
    target_height="target height above the pelvis (m)",
)


def foot_contacts(body, data):
    """The touch sensors as the policy observes them: binary by default; scaled by the body's weight with
    `contact_weight_share`, so that a graze reads about 0 instead of flipping the input (see findings)."""
    xp, touch, share = body.xp, data.sensordata[body.touch_adr], body.config.get("contact_weight_share", 0.0)
    if not share:
        return (touch > 1.0).astype(xp.float32)
    return xp.minimum(touch / (share * body.weight), 1.0).astype(xp.float32)


def observation_groups(body, data, prev_action):
    """The observation every stage shares, so that a policy carries over from stage to stage, as named groups
    (OBSERVATION_GROUPS); positions and sensors of `data` must be computed for its state."""
    xp = body.xp
    rot = pelvis_rotation(body, data)
    offset, _ = to_target(body, data)
    ahead = facing(body, data)
    horizontal = heading_frame(xp, ahead, offset[:2])
    command = data.userdata[:commands.SIZE]
    if body.config.get("approach_command", 0.0) > 0:
        command = approach_command(body, data, ahead, horizontal)
    observes_heading = body.config.get("observe_heading", False)
    horizontal *= xp.minimum(1.0, TARGET_OBS_RANGE / (xp.linalg.norm(horizontal) + 1e-6))
    groups = dict(
        gravity=-rot[2],
        pelvis_height=data.qpos[2:3],
        linear_velocity=rot.T @ data.qvel[:3],
        angular_velocity=data.qvel[3:6],
        joint_angles=data.qpos[7:] - body.qpos_home[7:],
        joint_velocities=data.qvel[6:],
        foot_contacts=foot_contacts(body, data),
        previous_action=prev_action,
        command=command,
        heading_error=(heading_error(body, data)[None] if observes_heading and body.config.get("command")
                       else xp.zeros(1)),  # no commands, nothing to integrate
        target_horizontal=horizontal,
        target_height=offset[2:],
    )
    if not body.config.get("observe_command", False):  # a policy trained or exported before commands were observed
        del groups["command"]
    if not observes_heading:  # off by default: see findings, "Velocity commands"
        del groups["heading_error"]
    if not body.config.get("observe_contacts", True):  # the anchors' policies observe no contacts: see findings
        del groups["foot_contacts"]
    return groups


def observe(body, data, prev_action):
    """The observation: its groups concatenated in order."""
    return body.xp.concatenate(list(observation_groups(body, data, prev_action).values()))


def observation_layout(config, mj_model):
    """[{name, start, stop, meaning}] of the observation, sized by running the observation itself on NumPy."""
    body = legged_body(config, mj_model, np)
    data = mujoco.MjData(mj_model)
    mujoco.mj_forward(mj_model, data)
    layout, start = [], 0
    for name, group in observation_groups(body, data, np.zeros(mj_model.nu)).items():
        layout.append(dict(name=name, start=start, stop=start + len(group), meaning=OBSERVATION_GROUPS[name]))
        start += len(group)
    return layout


@dataclass(frozen=True)
class Mirror:
    """The body's left-right reflection (through the pelvis's x-z plane) as signed permutations: a mirrored
    observation is `obs[..., obs_index] * obs_sign`, a mirrored action `action[..., action_index] * action_sign`."""

    obs_index: np.ndarray
    obs_sign: np.ndarray
    action_index: np.ndarray
    action_sign: np.ndarray


MIRROR_SIGNS = dict(gravity=(1, -1, 1), pelvis_height=(1,), linear_velocity=(1, -1, 1),
                    angular_velocity=(-1, 1, -1), command=(1, -1, -1), heading_error=(-1,),
                    target_horizontal=(1, -1), target_height=(1,))  # vectors: y flips; pseudovectors: x and z


def mirror_name(name):
    """The name of a part's mirror image: the side in its first word swaps (l_/r_, fl_/fr_, hl_/hr_)."""
    side, _, rest = name.partition("_")
    if rest and len(side) <= 2 and side[-1:] in ("l", "r"):
        return side[:-1] + {"l": "r", "r": "l"}[side[-1]] + "_" + rest
    return name


def mirrored_names(names):
    """(index, sign) of each name's mirror image (`mirror_name`); roll and yaw joints change sign. ConfigError for a
    part without its mirror image."""
    missing = [n for n in names if mirror_name(n) not in names]
    if missing:
        raise ConfigError(f"left-right symmetry: no mirror image for {', '.join(missing)} (left and right parts "
                          f"are named l_/r_, fl_/fr_, hl_/hr_)")
    index = [names.index(mirror_name(n)) for n in names]
    sign = [-1.0 if ("roll" in n or "yaw" in n) else 1.0 for n in names]
    return np.asarray(index), np.asarray(sign, np.float32)


def symmetric(config):
    """Whether training uses the body's mirror image: to train on (`symmetry_augmentation`) or in a loss."""
    return bool(config.get("symmetry_augmentation")) or config.get("symmetry_loss", 0.0) > 0


def mirror(config, mj_model):
    """The `Mirror` of a legged model whose joints, actuators and touch sensors are named l_... and r_..."""
    joints = [mj_model.joint(i).name for i in range(1, mj_model.njnt)]
    actuators = [mj_model.actuator(i).name for i in range(mj_model.nu)]
    touches = [mj_model.sensor(i).name for i in range(mj_model.nsensor)
               if mj_model.sensor_type[i] == mujoco.mjtSensor.mjSENS_TOUCH]
    joint_map, action_map = mirrored_names(joints), mirrored_names(actuators)
    per_group = dict(joint_angles=joint_map, joint_velocities=joint_map, previous_action=action_map,
                     foot_contacts=(mirrored_names(touches)[0], np.ones(len(touches), np.float32)))
    index, sign = [], []
    for group in observation_layout(config, mj_model):
        group_index, group_sign = per_group.get(group["name"]) or (np.arange(group["stop"] - group["start"]),
                                                                   np.asarray(MIRROR_SIGNS[group["name"]]))
        index.append(group["start"] + group_index)
        sign.append(group_sign)
    return Mirror(np.concatenate(index), np.concatenate(sign).astype(np.float32), *action_map)


def action_to_ctrl(body, action):
    """Action 0 holds the home pose; +-1 reaches `action_scale` of the way to each control limit."""
    reach = body.xp.where(action > 0, body.ctrl_high - body.ctrl_home, body.ctrl_home - body.ctrl_low)
    return body.ctrl_home + body.config["action_scale"] * action * reach


def applied_action(xp, smoothing, action, prev_action):
    """The action a control step applies (actuates, rewards and observes as the last action): the policy's `action`
    clipped to [-1, 1], and where `smoothing` > 0 low-passed, keeping that share of the last applied action (an
    exponential moving average of the policy's actions: a filter against chattering legs, which the policy observes
    through the last action it carries)."""
    action = xp.clip(action, -1.0, 1.0)
    return action if not smoothing else (1.0 - smoothing) * action + smoothing * prev_action


def posture_terms(body, data, action, prev_action):
    """The reward terms every stage pays: standing tall and upright near home, calm and smooth."""
    config = body.config
    upright_height = rewards.upright_height(data.qpos[2], body.home_height, config["height_sigma"],
                                            upright(body, data))
    return dict(
        upright_height=upright_height,
        posture=upright_height * rewards.posture(data.qpos[7:], body.qpos_home[7:], config["posture_sigma"]),
        ang_vel=rewards.squared_norm(data.qvel[3:6]),
        action_rate=rewards.squared_norm(action - prev_action),
        torque=rewards.squared_norm(data.actuator_force),
        joint_acc=rewards.squared_norm(data.qacc[6:]),
    )


def heading_terms(body, data):
    """Speed toward the target (capped at `target_speed`) and facing it: the terms of the stages that move."""
    _, heading = to_target(body, data)
    return dict(forward_speed=rewards.capped_speed(data.qvel[:2], heading, body.config["target_speed"]),
                facing=facing(body, data) @ heading)


def fallen(body, data):
    """The body is down: pelvis or head too low, or the pelvis tilted too far (`rewards.fallen`)."""
    config = body.config
    return rewards.fallen(data.qpos[2], data.xpos[body.head, 2], upright(body, data), config["min_pelvis_height"],
                          config["min_head_height"], config["max_tilt"])


def privileged(body, data):
    """The root's linear velocity in the world frame (m/s) and each foot touch sensor's reading (N)."""
    return body.xp.concatenate([data.qvel[:3], data.sensordata[body.touch_adr]])


def legged_task(body, mj_model, place_target, reward_terms, measure, **success):
    """A Task of `body` (of `mj_model`) whose stage-specific parts are given; `success`: is_success and
    episode_success."""
    return Task(functools.partial(start, body, place_target), functools.partial(observe, body),
                functools.partial(action_to_ctrl, body), reward_terms, functools.partial(fallen, body), measure,
                privileged=functools.partial(privileged, body), hold_command=functools.partial(command_userdata, body),
                mirror=mirror(body.config, mj_model) if symmetric(body.config) else None,
                **success)


def balance(config, mj_model, xp):
    """Stage 1: stand where you started (the target marks the start) under pushes; success: standing at the time
    limit."""
    body = legged_body(config, mj_model, xp)

    def reward_terms(data, action, prev_action):
        return posture_terms(body, data, action, prev_action) | dict(lin_vel=rewards.squared_norm(data.qvel[:2]))

    def measure(data):
        return dict(pelvis_height=data.qpos[2], forward_speed=data.qvel[:2] @ facing(body, data),
                    standing=(data.qpos[2] >= config["standing_height"]).astype(body.xp.float32))

    return legged_task(body, mj_model, lambda uniform, start_position, yaw: start_position, reward_terms, measure,
                       episode_success=lambda episode: episode["reached_time_limit"] & (episode["standing"] > 0))


def heading_velocity(body, data):
    """(the pelvis's horizontal velocity in its level heading frame: forward and left, m/s; its yaw rate to the left,
    rad/s); velocities must be computed (the free root's angular velocity is in the pelvis frame)."""
    velocity = heading_frame(body.xp, facing(body, data), data.qvel[:2])
    return velocity, (pelvis_rotation(body, data) @ data.qvel[3:6])[2]


def velocity(config, mj_model, xp):
    """Stage 2: follow the velocity command held in `data.userdata` (commands.py: the env draws it at reset and redraws
    it at random waits) while standing tall; judged by the tracking errors. The target marks the start, unobserved
    by the rewards."""
    body = legged_body(config, mj_model, xp)

    def tracking(data):
        """(velocity, yaw rate, command, the two errors): the heading frame's horizontal velocity and yaw rate, the
        command (forward, sideways, yaw rate), and how far each is from it."""
        velocity, yaw_rate = heading_velocity(body, data)
        command = data.userdata[:commands.SIZE]
        return velocity, yaw_rate, command, velocity - command[:2], yaw_rate - command[2]

    def reward_terms(data, action, prev_action):
        velocity, yaw_rate, command, lin_vel_error, yaw_rate_error = tracking(data)
        speed, turn = body.xp.linalg.norm(command[:2]), command[2:3]
        spin = data.qvel[3:6]
        sigma = config["tracking_sigma"]
        return posture_terms(body, data, action, prev_action) | dict(
            tracking_lin_vel=rewards.tracking(rewards.squared_norm(lin_vel_error), sigma),
            tracking_yaw_rate=rewards.tracking(yaw_rate_error ** 2, sigma),
            command_speed=rewards.capped_speed(velocity, command[:2] / (speed + 1e-6), speed),
            command_turn=rewards.capped_speed(yaw_rate[None], body.xp.sign(turn), body.xp.abs(turn[0])),
            tracking_lin_vel_linear=rewards.linear_tracking(body.xp.linalg.norm(lin_vel_error), 1.0),
            tracking_yaw_rate_linear=rewards.linear_tracking(body.xp.abs(yaw_rate_error), 1.0),
            tracking_heading=(rewards.tracking(heading_error(body, data) ** 2, sigma)
                              if config.get("observe_heading", False) else body.xp.zeros(())),
            ang_vel=rewards.squared_norm(spin - (spin @ body.home_up) * body.home_up),  # turning is commanded
            orientation=rewards.tilt(upright(body, data)))

    def measure(data):
        velocity, _, _, lin_vel_error, yaw_rate_error = tracking(data)
        return dict(pelvis_height=data.qpos[2], forward_speed=velocity[0],
                    lin_vel_error=body.xp.linalg.norm(lin_vel_error), yaw_rate_error=body.xp.abs(yaw_rate_error))

    return legged_task(body, mj_model, lambda uniform, start_position, yaw: start_position, reward_terms, measure)


def behaviour(config, mj_model, xp):
    """Stage 3: bring a tip site within `success_radius` of a target placed ahead; success ends the episode."""
    body = legged_body(config, mj_model, xp)

    def place_target(uniform, start_position, yaw):
        xp = body.xp
        distance, lateral, height = uniform(
            (3,), xp.asarray([config["target_distance"][0], -config["target_lateral"], config["target_height"][0]]),
            xp.asarray([config["target_distance"][1], config["target_lateral"], config["target_height"][1]]))
        ahead = xp.stack([xp.cos(yaw), xp.sin(yaw)])
        left = xp.stack([-xp.sin(yaw), xp.cos(yaw)])
        return xp.concatenate([start_position[:2] + distance * ahead + lateral * left, height[None]])

    def is_success(data):
        return tip_distance(body, data) < config["success_radius"]

    def reward_terms(data, action, prev_action):
        return (posture_terms(body, data, action, prev_action) | heading_terms(body, data)
                | dict(proximity=rewards.proximity(tip_distance(body, data), config["proximity_sigma"]),
                       closing=tip_closing_speed(body, data),
                       success=is_success(data).astype(body.xp.float32)))

    def measure(data):
        return dict(pelvis_height=data.qpos[2], forward_speed=data.qvel[:2] @ to_target(body, data)[1],
                    tip_distance=tip_distance(body, data), success=is_success(data).astype(body.xp.float32))

    return legged_task(body, mj_model, place_target, reward_terms, measure, is_success=is_success,
                       episode_success=lambda episode: episode["success"] > 0)


TASKS = {"balance": balance, "velocity": velocity, "behaviour": behaviour}
