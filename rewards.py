"""Reward terms and failure checks: pure functions, arrays in, arrays out, on JAX or NumPy arrays alike (each works
in the array library of its first argument). Weights live in the config dicts."""

import numpy as np


def array_library(x):
    """jax.numpy for a JAX array (traced or not), NumPy for a NumPy array or a Python number."""
    return x.__array_namespace__() if hasattr(x, "__array_namespace__") else np


def upright_height(height, target_height, sigma, up_z):
    """1 when at `target_height` with the body upright; ~0 when lying, sitting or crouching (no alive bonus)."""
    xp = array_library(height)
    height_score = xp.exp(-xp.square((height - target_height) / sigma))
    return height_score * xp.square(xp.clip(up_z, 0.0, 1.0))


def tilt(up_z):
    """Squared sine of the tilt whose cosine is `up_z`: 0 upright, growing as the body leans (with a negative weight,
    the anchors' orientation penalty)."""
    return 1.0 - array_library(up_z).square(up_z)


def posture(joints, home_joints, sigma):
    """1 at the home pose, decaying with the squared joint-angle distance from it."""
    xp = array_library(joints)
    return xp.exp(-xp.sum(xp.square(joints - home_joints)) / sigma**2)


def squared_norm(x):
    """Sum of squares; used with negative weights as a penalty (speed, action change, torque)."""
    xp = array_library(x)
    return xp.sum(xp.square(x))


def fallen(pelvis_height, head_height, up_z, min_pelvis_height, min_head_height, max_tilt):
    """The body is down: pelvis or head too low, or the pelvis tilted past `max_tilt` radians."""
    xp = array_library(pelvis_height)
    return (pelvis_height < min_pelvis_height) | (head_height < min_head_height) | (up_z < xp.cos(max_tilt))


def capped_speed(velocity, direction, max_speed):
    """Speed along the unit `direction`, capped at `max_speed` (running faster earns nothing more)."""
    return array_library(velocity).minimum(velocity @ direction, max_speed)


def tracking(squared_error, sigma):
    """exp(-squared_error / sigma): 1 on the command, 1/e at a squared error of `sigma` (the anchors' command tracking
    reward, sigma 0.25 in (m/s)^2 or (rad/s)^2)."""
    return array_library(squared_error).exp(-squared_error / sigma)


def linear_tracking(error, scale):
    """1 - error / scale, never below 0, of an absolute error (a norm or |x|): pays each step's error as the gate
    averages it, linearly, and stays positive so that a fall never pays."""
    return array_library(error).maximum(1.0 - error / scale, 0.0)


def proximity(distance, sigma):
    """1 at the target, decaying with the squared distance over `sigma`."""
    xp = array_library(distance)
    return xp.exp(-xp.square(distance / sigma))


def closing_speed(velocity, offset):
    """Speed (m/s) of a point moving with `velocity` toward a target `offset` away: the rate at which the distance
    falls. Integrated over time it is the distance covered toward the target, however the point got there."""
    xp = array_library(velocity)
    return velocity @ offset / (xp.linalg.norm(offset) + 1e-6)
