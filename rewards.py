"""Reward terms and failure checks: pure functions, arrays in, arrays out. Weights live in the config dicts."""

import jax.numpy as jnp


def upright_height(height, target_height, sigma, up_z):
    """1 when at `target_height` with the body upright; ~0 when lying, sitting or crouching (no alive bonus)."""
    height_score = jnp.exp(-jnp.square((height - target_height) / sigma))
    return height_score * jnp.square(jnp.clip(up_z, 0.0, 1.0))


def posture(joints, home_joints, sigma):
    """1 at the home pose, decaying with the squared joint-angle distance from it."""
    return jnp.exp(-jnp.sum(jnp.square(joints - home_joints)) / sigma**2)


def squared_norm(x):
    """Sum of squares; used with negative weights as a penalty (speed, action change, torque)."""
    return jnp.sum(jnp.square(x))


def fallen(pelvis_height, head_height, up_z, min_pelvis_height, min_head_height, max_tilt):
    """The body is down: pelvis or head too low, or the pelvis tilted past `max_tilt` radians."""
    return (pelvis_height < min_pelvis_height) | (head_height < min_head_height) | (up_z < jnp.cos(max_tilt))


def capped_speed(velocity, direction, max_speed):
    """Speed along the unit `direction`, capped at `max_speed` (running faster earns nothing more)."""
    return jnp.minimum(velocity @ direction, max_speed)


def across(velocity, direction):
    """The part of `velocity` perpendicular to the unit `direction`."""
    return velocity - (velocity @ direction) * direction


def proximity(distance, sigma):
    """1 at the target, decaying with the squared distance over `sigma`."""
    return jnp.exp(-jnp.square(distance / sigma))
