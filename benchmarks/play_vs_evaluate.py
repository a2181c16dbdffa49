"""play.py against evaluate.py on the same stage-1 episodes of each committed curriculum, in plain MuJoCo with the
mean action.

    python benchmarks/play_vs_evaluate.py        # writes results/play_vs_evaluate_cpu.json

evaluate.py's side is each stage-1 folder's eval_mujoco_mean.json, written by `python evaluate.py <stage 1> --physics
mujoco --mean --episodes 32 --seed 2000000`. play.py plays the same 32 episodes twice: with the env's own random
stream from that seed replayed (`env_draws`: the same starts and pushes as evaluate.py's), and with its own NumPy
stream from the same seed (different starts and pushes). tests/test_export.py holds the first within 2 episodes.
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import startup  # noqa: E402

startup.before_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import files  # noqa: E402
import play  # noqa: E402

SPECIES = ("trex", "velociraptor", "brachiosaurus")


def env_draws(config, seed, episodes):
    """episode -> play.Draws that replay the random stream of evaluate.py's episode from `seed`: the keys that
    evaluation.evaluation_rollout hands to each env, split as envs.build_env's reset and step split them (a legged
    task's start draws three times)."""
    steps = config["episode_length"]

    @jax.jit
    def streams(key):
        def episode(key):
            rng, init_key = jax.random.split(key)

            def step(rng, _):
                rng, push_key, _ = jax.random.split(rng, 3)
                return rng, jax.random.uniform(push_key, (), minval=-jnp.pi, maxval=jnp.pi)

            return jax.random.split(init_key, 3), jax.lax.scan(step, rng, None, length=steps)[1]

        return jax.vmap(episode)(jax.random.split(key, episodes))

    init_keys, push_angles = streams(jax.random.key(seed))

    def draws(i):
        keys = iter(init_keys[i])
        return play.Draws(lambda shape, low, high: np.asarray(jax.random.uniform(next(keys), shape, minval=low,
                                                                                   maxval=high)),
                          lambda time_step: float(push_angles[i, time_step]))

    return draws


def stage1(species):
    return os.path.join(ROOT, "results", f"{species}_curriculum_cpu_seed0", f"{species}_stage1")


def main():
    rows = []
    for species in SPECIES:
        with open(os.path.join(stage1(species), "eval_mujoco_mean.json")) as f:
            evaluated = json.load(f)
        episodes, seed = evaluated["episodes"], evaluated["seed"]
        exported = play.load_exported(stage1(species))
        same, _ = play.play_episodes(exported, episodes, seed, episode_draws=env_draws(exported.config, seed, episodes))
        own, _ = play.play_episodes(exported, episodes, seed)
        rows.append(dict(env=evaluated["env"], episodes=episodes, seed=seed,
                         evaluate_stood=round(evaluated["success_rate"] * episodes),
                         play_same_stream_stood=round(same["success_rate"] * episodes),
                         play_numpy_stream_stood=round(own["success_rate"] * episodes)))
        print(rows[-1])
    record = dict(command="python benchmarks/play_vs_evaluate.py", date=time.strftime("%Y-%m-%d"),
                  machine=files.host(["jax", "mujoco", "onnxruntime", "numpy"]), runs=rows)
    files.atomic_write(os.path.join(ROOT, "results", "play_vs_evaluate_cpu.json"), json.dumps(record, indent=1) + "\n")
    print("wrote results/play_vs_evaluate_cpu.json")


if __name__ == "__main__":
    main()
