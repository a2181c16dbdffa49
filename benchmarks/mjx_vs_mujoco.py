"""How soon MJX and plain MuJoCo part: the same env stepped in MJX and with `physics="mujoco"` from the same starts,
draws and actions (observation noise off), step by step, and why they part at once (the start's foot contact).

    python benchmarks/mjx_vs_mujoco.py                        # writes results/mjx_vs_mujoco_trex_stage1.json
    python benchmarks/mjx_vs_mujoco.py --env velociraptor_stage1 --action-scale 0.5

Per control step: the largest difference over envs and coordinates of qpos (m and rad), of the observation, and of the
pelvis height. Then, in plain MuJoCo alone, each env's start: the lowest foot point's height (a start rests it on the
floor) and how many contacts MuJoCo finds there, with the body lowered and lifted by `--lift` metres.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import startup  # noqa: E402

startup.before_jax()

import jax  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402
from mujoco import mjx  # noqa: E402

import envs  # noqa: E402
import files  # noqa: E402
import tasks  # noqa: E402
import training  # noqa: E402
from configs import get_config  # noqa: E402

REPORTED_STEPS = (1, 2, 3, 5, 10, 20, 50, 100)


def rollout(name, physics, overrides, actions, key):
    """Every step's (obs, qpos) of `len(actions)` steps of `name` in `physics` from `key`'s starts."""
    env = envs.make_env(name, physics, **overrides)

    @jax.jit
    def run(key):
        def step(state, action):
            state = jax.vmap(env.step)(state, action)
            return state, (state.obs, state.data.qpos)

        first = jax.vmap(env.reset)(jax.random.split(key, actions.shape[1]))
        return first, jax.lax.scan(step, first, actions)[1]

    return jax.device_get(run(key)), env


def start_contacts(env, first, lift):
    """Per env: (the lowest foot point's height at its start, MuJoCo's contacts there with the body lowered by `lift`
    m, as it is, and lifted by `lift` m)."""
    body, rows = tasks.legged_body(env.config, env.mj_model, np), []
    for i in range(first.obs.shape[0]):
        counts = []
        for dz in (-lift, 0.0, lift):
            data = mjx.get_data(env.mj_model, jax.tree.map(lambda x: x[i], first.data))
            data.qpos[2] += dz
            mujoco.mj_forward(env.mj_model, data)
            counts.append(int(data.ncon))
        data = mjx.get_data(env.mj_model, jax.tree.map(lambda x: x[i], first.data))
        mujoco.mj_kinematics(env.mj_model, data)
        rows.append(dict(lowest_point_m=float(tasks.lowest_point(body, data)), contacts=counts))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="trex_stage1")
    parser.add_argument("--envs", type=int, default=4)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--action-scale", type=float, default=0.0, help="actions uniform in +-this (0: zero action)")
    parser.add_argument("--lift", type=float, default=1e-7, help="(m) how far a start is moved for the contact check")
    parser.add_argument("--out", help="default: results/mjx_vs_mujoco_<env>.json")
    args = parser.parse_args(argv)
    training.enable_compilation_cache()
    start = time.monotonic()
    noise = {f"randomize.obs_noise.{g}": 0.0 for g in get_config(args.env)["randomize"]["obs_noise"]}
    action_size = envs.make_env(args.env).action_size
    actions = np.random.default_rng(0).uniform(-1, 1, (args.steps, args.envs, action_size)) * args.action_scale
    key = jax.random.key(0)
    ((first, (mjx_obs, mjx_qpos)), env), ((_, (mujoco_obs, mujoco_qpos)), _) = (
        rollout(args.env, physics, noise, actions.astype(np.float32), key) for physics in ("mjx", "mujoco"))
    per_step = dict(qpos=np.abs(mjx_qpos - mujoco_qpos).max(axis=(1, 2)),
                    obs=np.abs(mjx_obs - mujoco_obs).max(axis=(1, 2)),
                    pelvis_height=np.abs(mjx_qpos[..., 2] - mujoco_qpos[..., 2]).max(axis=1))
    starts = start_contacts(env, first, args.lift)
    rows = [dict(step=t, **{k: float(v[t - 1]) for k, v in per_step.items()}) for t in REPORTED_STEPS
            if t <= args.steps]
    for row in rows:
        print(f"step {row['step']:>4}: qpos {row['qpos']:.2e}  obs {row['obs']:.2e}  pelvis height "
              f"{row['pelvis_height']:.2e}")
    for row in starts:
        print(f"start: lowest foot point {row['lowest_point_m']:.1e} m; contacts lowered {args.lift:g} m, as it is, "
              f"lifted: {row['contacts']}")
    out = args.out or os.path.join(ROOT, "results", f"mjx_vs_mujoco_{args.env}.json")
    record = dict(command=" ".join(["python benchmarks/mjx_vs_mujoco.py", *(argv if argv is not None else
                                                                            sys.argv[1:])]),
                  date=time.strftime("%Y-%m-%d"), machine=files.host(["jax", "mujoco", "mujoco-mjx"]),
                  wall_s=round(time.monotonic() - start, 1), env=args.env, envs=args.envs,
                  action_scale=args.action_scale, largest_differences=rows, lift_m=args.lift, starts=starts)
    files.atomic_write(out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {os.path.relpath(out, ROOT)}")


if __name__ == "__main__":
    main()
