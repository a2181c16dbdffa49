"""Evaluation of a policy in an env: fresh episodes, one per env of a batch, and their summary.

`evaluation_rollout` runs a policy ((obs, key) -> action) for one episode in each of N envs inside one traceable
function (training vmaps it over runs, evaluate.py compiles it alone) and records, per episode, its return, length,
whether it reached the time limit, and every measure the env's task reports (at the episode's last step, and its
mean over the episode). `evaluation_summary` averages them over episodes and adds `success_rate` where the task says
what success is (`env.episode_success`). No task metric is known here by name.
"""

import jax
import jax.numpy as jnp
import numpy as np

WRAPPER_INFO = ("nan_reset", "push_speed")  # info keys the env wrapper adds (envs.build_env): not task measures


def zero_policy(env):
    """(obs, key) -> action 0 (hold the home pose): the do-nothing baseline."""
    return lambda obs, key: jnp.zeros(obs.shape[:-1] + (env.action_size,))


def evaluation_rollout(env, policy, key, num_episodes, params=None):
    """`policy` ((obs, key) -> action) for one episode in each of `num_episodes` envs stepped with `params` (default:
    the env's); traceable. The policy's keys come from `key` apart from the envs' keys, so starts and pushes do not
    depend on the policy. Stepping stops once every episode has ended (a stage-3 episode that strikes ends long before
    the time limit). Returns (episodes, poses): per episode its return, length, whether it reached the time limit,
    each task measure at its last step and its mean over the episode (`<name>_mean`); and poses
    [steps, episodes, nq + 3 nmocap + nuserdata], qpos, the mocap (target) positions and the userdata (the velocity
    command), for rendering (valid below each length)."""
    params = env.default_params if params is None else params
    measures = task_measures(env)

    def _pose(state):
        return jnp.concatenate([state.data.qpos, state.data.mocap_pos.reshape(num_episodes, -1), state.data.userdata],
                               axis=-1)

    def _eval_step(carry):
        t, state, ended, result, poses = carry
        pose = _pose(state)
        state = jax.vmap(env.step, in_axes=(0, 0, None))(state, policy(state.obs, policy_keys[t]), params)
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
        return t + 1, state, ended | ends_now, result, poses.at[t].set(pose)

    def _episodes_running(carry):
        t, _, ended, _, _ = carry
        return (t < steps) & ~jnp.all(ended)

    steps = env.config["episode_length"]
    state = jax.vmap(env.reset)(jax.random.split(key, num_episodes))
    policy_keys = jax.random.split(jax.random.fold_in(key, 1), steps)
    ended = jnp.zeros(num_episodes, bool)
    poses = jnp.zeros((steps, *_pose(state).shape))
    _, _, _, result, poses = jax.lax.while_loop(
        _episodes_running, _eval_step, (0, state, ended, empty_record(measures, jnp, num_episodes), poses))
    return result, poses


def task_measures(env):
    """The names of the measures `env`'s task reports in its `info`."""
    return [k for k in jax.eval_shape(env.reset, jax.random.key(0)).info
            if not k.startswith("reward/") and k not in WRAPPER_INFO]


def empty_record(measures, xp, num_episodes):
    """The record of `num_episodes` episodes before their first step (`xp`: numpy or jax.numpy)."""
    zeros = xp.zeros(num_episodes, xp.float32)
    return dict(episode_return=zeros, episode_length=zeros, reached_time_limit=zeros.astype(bool),
                **{k: zeros for k in measures}, **{f"{k}_mean": zeros for k in measures})


def evaluate(env, policy, key, num_episodes):
    """`evaluation_rollout`, compiled and brought to the host as numpy arrays."""
    return jax.device_get(jax.jit(lambda key: evaluation_rollout(env, policy, key, num_episodes))(key))


def evaluation_summary(env, episodes):
    """Means over episodes (numpy arrays, as `evaluate` returns them) and, where `env`'s task defines success,
    `success_rate`: the share of episodes it counts as a success."""
    summary = {k: float(np.mean(v)) for k, v in episodes.items()}
    if env.episode_success is not None:
        summary["success_rate"] = float(np.mean(env.episode_success(episodes)))
    return summary


def evaluation_metric_names(env):
    """The metric names of `env`'s evaluation summaries (eval.json), from its task's measures (tracing a reset alone)."""
    return sorted(evaluation_summary(env, empty_record(task_measures(env), np, 1)))
