"""Domain randomization and randomized pushes: what an episode draws at its reset, and what the draws change.

The settings are a config's `randomize` dict (configs/stages.py) and its `push_speed` and `push_interval`. A range
is (low, high), drawn uniformly (whole numbers for control steps); a single number is fixed; None turns one setting
off and `randomize.enabled=False` all of them. Every env draws afresh at every episode's reset (`draw`): the feet's
friction on the floor, each body's mass, a payload, each actuator's gain, each joint's damping and armature, each
actuator's home offset and the action delay. The draws are arrays kept in the env's state: `model_values` turns them
into the model fields they change, which envs.py writes into the MJX model inside `step` (one compiled program serves
every env and every draw) and into the MjModel of plain MuJoCo, so sim-to-sim holds under the same draws. Observation
noise is fresh at every step. Settings given as "scaled" (configs.BODY_SCALED: the payload and the stage-1 push speed
by default) are worked out from the body first (`body_scaled`). Like tasks.py, everything runs on the arrays of `xp`
with randomness from a `uniform(shape, low, high)` callback, so this module imports no JAX.
"""

import math
from dataclasses import dataclass
from typing import Any, Optional

import mujoco
import numpy as np

import model_checks
import tasks
from configs import BODY_SCALED, ConfigError, as_range, is_range

# What each range of `randomize` draws: its unit and the least value it may take.
RANGES = dict(
    friction=("sliding friction", 0.0),
    body_mass=("scale", 1e-3),
    payload=("kg", None),  # checked against the payload body's mass instead
    kp=("scale", 0.0),
    damping=("scale", 0.0),
    armature=("scale", 0.0),
    home_offset=("rad", None),
    action_delay=("control steps", 0),
)
MAX_ACTION_DELAY = 2  # control steps
SCALED = dict(kp=("actuator_gainprm", "actuator_biasprm"), damping=("dof_damping",), armature=("dof_armature",))


def ranges(config):
    """{name: (low, high)} for each range `config` turns on; {} when nothing is randomized."""
    randomize = config.get("randomize") or {}
    if not randomize.get("enabled"):
        return {}
    return {name: as_range(randomize[name]) for name in RANGES if randomize.get(name) is not None}


def observation_noise(config):
    """{observation group: amplitude} for each group `config` makes noisy; {} when none is."""
    randomize = config.get("randomize") or {}
    if not randomize.get("enabled"):
        return {}
    return {group: amplitude for group, amplitude in randomize.get("obs_noise", {}).items() if amplitude}


def body_scaled(config, mj_model):
    """`config` with its "scaled" settings worked out from the body of `mj_model` (a model that passes
    model_checks.check_model): the payload range +-`randomize.payload_share` of the body's total mass (kg), and the push
    speeds `push_froude` x sqrt(g x home pelvis height) (m/s; Froude scaling: a body of the same shape and another
    size tips over at speeds in that proportion). Other configs come back as they are."""
    randomize = config.get("randomize") or {}
    scaled = dict(config)
    if randomize.get("payload") == BODY_SCALED:
        share = randomize.get("payload_share")
        if not isinstance(share, (int, float)) or share < 0:
            raise ConfigError(f"randomize.payload 'scaled' needs randomize.payload_share, a share >= 0; got {share!r}")
        mass = float(mj_model.body_mass.sum())
        scaled["randomize"] = dict(randomize, payload=(-share * mass, share * mass))
    if config.get("push_speed") == BODY_SCALED:
        if config.get("push_froude") is None:
            raise ConfigError("push_speed 'scaled' needs push_froude (push speeds in units of sqrt(g x home pelvis "
                              "height)), which only stage 1 has; give push_speed in m/s")
        unit = math.sqrt(np.linalg.norm(mj_model.opt.gravity) * model_checks.home_heights(mj_model)[0])
        froude = config["push_froude"]
        scaled["push_speed"] = tuple(unit * f for f in froude) if is_range(froude) else unit * froude
    return scaled


def check(config, mj_model):
    """ConfigError for a range that cannot be drawn: negative friction, mass or gain, a payload that leaves its body
    with no mass, an unknown body or observation group, a delay outside 0-2 steps, negative noise, a push range below
    zero or a wait below one step (after `body_scaled`)."""
    scaled = (config.get("randomize") or {}).get("payload") == BODY_SCALED
    config = body_scaled(config, mj_model)
    randomize = config.get("randomize") or {}
    for name, (unit, least) in RANGES.items():
        if randomize.get(name) is None:
            continue
        low, high = as_range(randomize[name])
        if low > high:
            raise ConfigError(f"randomize.{name}: low {low} is above high {high}")
        if least is not None and low < least:
            raise ConfigError(f"randomize.{name}: {low} is below {least:g}, the least {unit} it may take")
    if "payload_body" in randomize:
        body = randomize["payload_body"]
        if mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_BODY, body) < 0:
            raise ConfigError(f"randomize.payload_body: the model has no body '{body}'")
        lightest = as_range(randomize["payload"])[0] if randomize.get("payload") is not None else None
        if lightest is not None and mj_model.body(body).mass[0] + lightest <= 0:
            amount = (f"{lightest:.3g} kg (scaled: payload_share {randomize['payload_share']:g} of the body's mass)"
                      if scaled else f"{lightest} kg")
            raise ConfigError(f"randomize.payload: {amount} leaves body '{body}' "
                              f"({mj_model.body(body).mass[0]:.2f} kg) with no mass")
    if randomize.get("action_delay") is not None and as_range(randomize["action_delay"])[1] > MAX_ACTION_DELAY:
        raise ConfigError(f"randomize.action_delay: at most {MAX_ACTION_DELAY} control steps")
    for group, amplitude in randomize.get("obs_noise", {}).items():
        if group not in tasks.OBSERVATION_GROUPS:
            raise ConfigError(f"randomize.obs_noise: no observation group '{group}'; groups: "
                              f"{', '.join(tasks.OBSERVATION_GROUPS)}")
        if amplitude < 0:
            raise ConfigError(f"randomize.obs_noise.{group}: negative noise {amplitude}")
    if config.get("push_interval"):
        speed, interval = as_range(config["push_speed"]), as_range(config["push_interval"])
        if speed[0] > speed[1] or interval[0] > interval[1]:
            raise ConfigError("push_speed and push_interval ranges are (low, high) with low <= high")
        if speed[0] < 0 or interval[0] < 1:
            raise ConfigError("push_speed must be at least 0 m/s and push_interval at least 1 control step")


@dataclass(frozen=True)
class Plan:
    """What a config randomizes in a model, worked out once for envs.py's env and for play.py."""

    ranges: dict  # {name: (low, high)} of the draws made at each reset (`ranges`)
    shapes: dict  # the shape of each draw (`draw_shapes`)
    fields: dict  # the model fields the draws change, at their nominal values (`nominal`)
    where: dict  # what `model_values` needs besides (`nominal`)
    noise: Optional[np.ndarray]  # uniform noise amplitude of each observation element, or None
    delay: int  # the longest action delay: how many recent actions an episode keeps
    push_interval: Any  # control steps between pushes (0: none), or a (low, high) range of waits
    push_speed: Any  # (m/s) a push's speed, or a (low, high) range
    ranged_push: bool  # pushes draw their speed and wait: an episode keeps its next push's step
    draws_episode: bool  # an episode draws anything at its reset (randomization, noise or pushes)


def plan(config, mj_model):
    """The `Plan` of `config` (its "scaled" settings worked out: `body_scaled`) for `mj_model`; the config is checked
    beforehand (`check`)."""
    config = body_scaled(config, mj_model)
    active, noisy = ranges(config), observation_noise(config)
    fields, where = nominal(mj_model, active, config.get("randomize", {}).get("payload_body", "pelvis"))
    noise = noise_amplitudes(noisy, tasks.observation_layout(config, mj_model)) if noisy else None
    interval, speed = config.get("push_interval"), config.get("push_speed")
    ranged_push = bool(interval) and (is_range(interval) or is_range(speed))
    return Plan(active, draw_shapes(mj_model), fields, where, noise, active.get("action_delay", (0, 0))[1], interval,
                speed, ranged_push, bool(active) or bool(noisy) or ranged_push)


def nominal(mj_model, active, payload_body):
    """The model fields the `active` draws change, at their nominal values (numpy arrays), and what `model_values`
    needs to change them: the colliding geoms and the id of the body that carries the payload."""
    fields = {}
    if "friction" in active:
        fields["geom_friction"] = mj_model.geom_friction.astype(np.float32)
    if "body_mass" in active or "payload" in active:
        fields |= dict(body_mass=mj_model.body_mass.astype(np.float32),
                       body_inertia=mj_model.body_inertia.astype(np.float32))
    for name, names in SCALED.items():
        if name in active:
            fields |= {field: getattr(mj_model, field).astype(np.float32) for field in names}
    colliding = (mj_model.geom_contype != 0) | (mj_model.geom_conaffinity != 0)
    return fields, dict(colliding=colliding, payload_body=mj_model.body(payload_body).id if "payload" in active else -1)


def draw_shapes(mj_model):
    """The shape of each draw: one friction, payload and delay per episode; a mass scale per body, a gain scale and
    home offset per actuator, a damping and armature scale per degree of freedom."""
    return dict(friction=(), body_mass=(mj_model.nbody,), payload=(), kp=(mj_model.nu,), damping=(mj_model.nv,),
                armature=(mj_model.nv,), home_offset=(mj_model.nu,), action_delay=())


def whole_number(uniform, low, high, xp):
    """A whole number from `low` to `high`, each as likely, from one `uniform` draw."""
    return xp.minimum(xp.floor(uniform((), low, high + 1)), high).astype(xp.int32)


def draw(active, shapes, uniform, xp):
    """One episode's draws {name: array} of the `active` ranges; `uniform` is called once per range."""
    episode = {}
    for name, (low, high) in active.items():
        if name == "action_delay":
            episode[name] = whole_number(uniform, low, high, xp)
        else:
            episode[name] = uniform(shapes[name], low, high)
    return episode


def start_episode(plan, nu, uniform, xp):
    """What an episode keeps from its reset: its draws, then its recent actions (zero) and the step of its first
    push."""
    episode = draw(plan.ranges, plan.shapes, uniform, xp)
    episode |= dict(recent_actions=xp.zeros((plan.delay, nu))) if plan.delay else {}
    episode |= dict(next_push=push_wait(plan, uniform, xp)) if plan.ranged_push else {}
    return episode


def push_wait(plan, uniform, xp):
    """Control steps until the next push, drawn from the push_interval range."""
    return whole_number(uniform, *as_range(plan.push_interval), xp)


def controls(action_to_ctrl, action, episode, xp):
    """(the controls the motors get from `action`: `action_delay` steps late, about the home pose shifted by
    `home_offset`; the episode with `action` recorded among its recent actions)."""
    if "recent_actions" in episode:
        recent = xp.concatenate([action[None], episode["recent_actions"]])
        action, episode = recent[episode["action_delay"]], episode | dict(recent_actions=recent[:-1])
    ctrl = action_to_ctrl(action)
    return (ctrl + episode["home_offset"] if "home_offset" in episode else ctrl), episode


def push(plan, time, episode, uniform, xp):
    """The push at control step `time` (a free root's horizontal velocity kick): (the kick, its speed or 0 when no
    push is due, the episode with the step of its next push). Pushes come every `push_interval` steps at
    `push_speed`, or, for ranges, at a speed and after a wait drawn at each push; the direction is uniform. Every step
    draws (the direction first), due or not, so the draws of one step never depend on earlier steps."""
    angle = uniform((), -np.pi, np.pi)
    if plan.ranged_push:
        speed = uniform((), *as_range(plan.push_speed))
        due = time == episode["next_push"]
        episode = episode | dict(next_push=xp.where(due, time + push_wait(plan, uniform, xp), episode["next_push"]))
    else:
        speed, due = plan.push_speed, (time > 0) & (time % plan.push_interval == 0)
    speed = xp.where(due, speed, 0.0)
    return speed * xp.array([xp.cos(angle), xp.sin(angle)]), speed, episode


def model_values(fields, where, episode, xp):
    """{model field: value} for one episode's draws, from the nominal `fields` and `where` of `nominal`."""
    values = {}
    if "friction" in episode:
        sliding = (np.arange(3) == 0) & where["colliding"][:, None]  # the floor and the feet: MuJoCo takes the max
        values["geom_friction"] = xp.where(sliding, episode["friction"], fields["geom_friction"])
    if "body_mass" in fields:
        mass = fields["body_mass"] * episode.get("body_mass", 1.0)
        if "payload" in episode:
            mass = mass + xp.where(np.arange(len(mass)) == where["payload_body"], episode["payload"], 0.0)
        # inertia follows the mass, as if each body were denser or lighter all through
        ratio = xp.where(fields["body_mass"] > 0, mass / xp.maximum(fields["body_mass"], 1e-9), 1.0)
        values |= dict(body_mass=mass, body_inertia=fields["body_inertia"] * ratio[:, None])
    if "kp" in episode:  # a position servo: force = kp * ctrl - kp * angle, so the gain and its bias term scale
        scale = episode["kp"][:, None]
        values["actuator_gainprm"] = xp.where(np.arange(10) == 0, fields["actuator_gainprm"] * scale,
                                              fields["actuator_gainprm"])
        values["actuator_biasprm"] = xp.where(np.arange(10) == 1, fields["actuator_biasprm"] * scale,
                                              fields["actuator_biasprm"])
    for name in ("damping", "armature"):
        if name in episode:
            values[f"dof_{name}"] = fields[f"dof_{name}"] * episode[name]
    return values


def noise_amplitudes(noise, layout):
    """The uniform noise amplitude of each observation element, from {group: amplitude} and the observation's
    `layout` (tasks.observation_layout)."""
    return np.concatenate([np.full(group["stop"] - group["start"], noise.get(group["name"], 0.0), np.float32)
                           for group in layout])
