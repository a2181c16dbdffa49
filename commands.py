"""Velocity commands: what a stage that follows commands asks of the body, drawn at reset and redrawn at random waits.

A command is (forward speed, sideways speed to the left, yaw rate to the left) in the pelvis's level heading frame:
m/s, m/s, rad/s. A stage's `command` settings (configs/stages.py) give a (low, high) range for each, the share of
draws that command standing still (all zero), the share of moving draws told to walk backward, and the range of
control steps until the next draw. The command lives in the physics state's `userdata` (tasks.load_model sizes it), so
that the observation and the reward read it from the state as they read the target, in the env and in play.py alike.
Like randomization.py, everything runs on the arrays of `xp` with randomness from a `uniform(shape, low, high)`
callback, so this module imports no JAX.
"""

from dataclasses import dataclass
import numpy as np

from configs import ConfigError, as_range

SIZE = 3  # forward (m/s), left (m/s), yaw rate (rad/s)
RANGES = ("forward", "lateral", "yaw_rate")  # the `command` settings that are ranges, in the command's order


@dataclass(frozen=True)
class Schedule:
    """A stage's command settings, checked."""

    low: np.ndarray  # the least forward, lateral and yaw-rate command
    high: np.ndarray  # the greatest
    standing_share: float  # share of draws that command standing still
    interval: tuple  # (low, high) control steps until the next draw
    backward_share: float = 0.0  # share of moving draws whose forward speed comes from the range below 0


def schedule(config):
    """The `Schedule` of `config`'s `command` settings, or None for a stage without commands; ConfigError for a share
    outside [0, 1], a range with low above high, a backward share without backward speeds in the forward range or a
    wait under one control step."""
    settings = config.get("command")
    if settings is None:
        return None
    settings = {"backward_share": 0.0, **settings}  # a policy exported before the share drew uniformly
    low, high = np.array([as_range(settings[name]) for name in RANGES], np.float32).T
    if np.any(low > high):
        raise ConfigError(f"command: each of {', '.join(RANGES)} is a (low, high) range with low <= high")
    for share in ("standing_share", "backward_share"):
        if not 0.0 <= settings[share] <= 1.0:
            raise ConfigError(f"command.{share}: a share from 0 to 1, got {settings[share]}")
    if settings["backward_share"] > 0.0 and low[0] >= 0.0:
        raise ConfigError(f"command.backward_share: the forward range ({low[0]:g}, {high[0]:g}) has no speed below 0")
    interval = as_range(settings["interval"])
    if interval[0] < 1 or interval[0] > interval[1]:
        raise ConfigError(f"command.interval: a (low, high) range of control steps from 1 up, got {interval}")
    return Schedule(low, high, float(settings["standing_share"]), interval, float(settings["backward_share"]))


def draw(schedule, uniform, xp):
    """A command: uniform in the ranges, or all zero (stand still) with probability `standing_share`; with a
    `backward_share`, that share of the moving ones takes its forward speed uniform from the range below 0 (a walk
    backward is rare otherwise: 1 draw in 6 of the T-Rex's -0.5-2.5 m/s). Draws twice, 4 times with a backward share."""
    command = uniform((SIZE,), schedule.low, schedule.high)
    if schedule.backward_share:
        backward = uniform((), schedule.low[0], min(schedule.high[0], 0.0))
        forward = xp.where(uniform((), 0.0, 1.0) < schedule.backward_share, backward, command[0])
        command = xp.concatenate([forward[None], command[1:]])
    return xp.where(uniform((), 0.0, 1.0) < schedule.standing_share, 0.0, command)


def draws(schedule):
    """How many times `start` and `update` call `uniform`: `draw`'s 2 (4 with a backward share) and `wait`'s 1."""
    return 5 if schedule.backward_share else 3


def wait(schedule, uniform, xp):
    """Control steps until the next command, a whole number in `interval`, each as likely. Draws once."""
    low, high = schedule.interval
    return xp.minimum(xp.floor(uniform((), low, high + 1)), high).astype(xp.int32)


def start(schedule, uniform, xp):
    """(the first command, the control step of the next draw)."""
    return draw(schedule, uniform, xp), wait(schedule, uniform, xp)


def update(schedule, time, held, next_draw, uniform, xp, hold=lambda command, fresh, steps: command):
    """(what holds the command after control step `time`, the step of the next draw): a fresh command when one is due,
    else the one `held` holds first (a command, or userdata beginning with one), handed to `hold(command, fresh,
    steps=1)` (tasks.command_userdata; by default the command itself). Every step draws, due or not, so the draws of
    one step never depend on earlier steps."""
    fresh, fresh_wait = start(schedule, uniform, xp)
    due = time == next_draw
    return hold(xp.where(due, fresh, held[:SIZE]), due, 1), xp.where(due, time + fresh_wait, next_draw)


NEVER = 2**30  # control steps: a held command's next draw


def held(command):
    """A Schedule whose every draw is `command` (forward, left, yaw rate), drawn at reset and never again."""
    command = np.asarray(command, np.float32)
    return Schedule(command, command, 0.0, (NEVER, NEVER))


def text(command):
    """The command in words, as play.py prints it and videos caption it."""
    return f"forward {command[0]:+.2f} m/s, left {command[1]:+.2f} m/s, turn {command[2]:+.2f} rad/s"


def world_velocity(ahead, command):
    """The commanded horizontal velocity (world x, y; m/s) of a body facing the unit horizontal vector `ahead`."""
    return command[0] * np.asarray(ahead) + command[1] * np.array([-ahead[1], ahead[0]])
