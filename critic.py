"""What a privileged critic observes (`privileged_critic`): the policy's observation before its noise and what only
training knows, in named groups. envs.py keeps it in the env state beside `obs`; the policy and its export never read
it."""

import jax.numpy as jnp

# The critic's observation, group by group in order.
CRITIC_GROUPS = dict(
    clean_observation="the policy's observation before its noise",
    draws="the episode's randomization draws, as randomization.py orders them (friction, body masses, payload, "
          "gains, damping, armature, home offsets, action delay)",
    push="control steps until the next push, and the last push's kick (m/s, world x and y); none without pushes",
    command="control steps until the next velocity command is drawn (commands.py); none without commands",
    body="the task's privileged state: the root's linear velocity in the world frame (m/s) and each foot touch "
         "sensor's reading (N)",
)


def start_episode(plan, episode):
    """`episode` with what the critic remembers of its pushes: the last kick, none yet."""
    return episode | dict(last_kick=jnp.zeros(2)) if plan.push_interval else episode


def remember_push(episode, kick, speed):
    """`episode` with `kick` as its last where a push came this step (`speed` > 0)."""
    return episode | dict(last_kick=jnp.where(speed > 0, kick, episode["last_kick"]))


def critic_observation(plan, task, data, clean_obs, episode, time):
    """The critic's observation (CRITIC_GROUPS) of `data` at control step `time` of `episode`, under the
    randomization `plan` (randomization.plan) of the `task` (tasks.Task)."""
    groups = [clean_obs]
    groups += [jnp.ravel(episode[name]).astype(jnp.float32) for name in plan.ranges]
    if plan.push_interval:
        wait = episode["next_push"] - time if plan.ranged_push else plan.push_interval - time % plan.push_interval
        groups += [jnp.reshape(wait, (1,)).astype(jnp.float32), episode["last_kick"]]
    if "next_command" in episode:  # a stage with velocity commands (envs.reset)
        groups.append(jnp.reshape(episode["next_command"] - time, (1,)).astype(jnp.float32))
    if task.privileged is not None:
        groups.append(task.privileged(data))
    return jnp.concatenate(groups)
