"""play.py against evaluate.py on the same stage-1 episodes of each committed curriculum, in plain MuJoCo with the
mean action: does the exported policy, played outside JAX, do what evaluate.py measured?

    python benchmarks/play_vs_evaluate.py        # writes results/play_vs_evaluate_cpu.json
    python benchmarks/play_vs_evaluate.py CURRICULUM CURRICULUM CURRICULUM --out FILE.json   # trex, velociraptor,
                                                                                             # brachiosaurus

evaluate.py's side is each stage-1 folder's eval_mujoco_mean.json, as `python benchmarks/species_table.py` writes it
(`python evaluate.py <stage 1> --physics mujoco --mean --episodes 64 --seed 2000000`); each folder needs it and its
export (policy.onnx, `python export.py <stage 1>`). play.py plays the record's episodes twice: with the env's own
random stream from the record's seed replayed (`env_draws`: the same starts, randomization draws, pushes and
observation noise as evaluate.py's), and with its own NumPy stream from the same seed (different ones). The policies
differ only by rounding (ONNX against XLA, float64 against a state crossing as float32), which a marginal episode grows
into a fall either way, so even the same stream agrees in counts, not episode for episode: tests/test_export.py holds
the committed curricula within 2 of every 32 episodes.
"""

import argparse
import functools
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

import commands  # noqa: E402
import files  # noqa: E402
import play  # noqa: E402
from benchmarks import SPECIES, curriculum_folder  # noqa: E402


def env_draws(exported, seed, episodes):
    """episode -> play.Draws that replay the random stream of evaluate.py's episode from `seed`: the keys that
    evaluation.evaluation_rollout hands to each env, split as envs.build_env's reset and step split them (with
    randomization, noise or ranged pushes, reset splits three ways and the draw key once more for the noise; with
    velocity commands, the env's key once more for them, at reset and at every step)."""
    plan, steps, schedule = exported.plan, exported.config["episode_length"], exported.schedule is not None
    pushes = 3 if plan.ranged_push else 1
    command_draws = commands.draws(exported.schedule) if schedule else 1  # unused without commands

    def several(key, count):
        return key[None] if count == 1 else jax.random.split(key, count)

    @jax.jit
    def streams(key):
        def episode(key):
            if plan.draws_episode:
                rng, init_key, draw_key = jax.random.split(key, 3)
                draw_key, noise_key = jax.random.split(draw_key)
            else:
                (rng, init_key), draw_key, noise_key = jax.random.split(key), key, key  # the last two unused
            command_key = rng  # unused without commands
            if schedule:
                rng, command_key = jax.random.split(rng)

            def step(rng, _):
                rng, push_key, _ = jax.random.split(rng, 3)
                noise_key = command_key = rng
                if plan.noise is not None:
                    rng, noise_key = jax.random.split(rng)
                if schedule:
                    rng, command_key = jax.random.split(rng)
                return rng, (several(push_key, pushes), noise_key, several(command_key, command_draws))

            push_keys, noise_keys, command_keys = jax.lax.scan(step, rng, None, length=steps)[1]
            return (several(init_key, exported.task.draws), several(draw_key, len(plan.ranges) + 1), push_keys,
                    jnp.concatenate([noise_key[None], noise_keys]), several(command_key, command_draws), command_keys)

        return jax.vmap(episode)(jax.random.split(key, episodes))

    init_keys, draw_keys, push_keys, noise_keys, first_command_keys, command_keys = streams(jax.random.key(seed))

    @functools.partial(jax.jit, static_argnums=1)
    def uniform(keys, shape, low, high):
        draw = functools.partial(jax.random.uniform, shape=shape, minval=low, maxval=high)
        for _ in range(keys.ndim):
            draw = jax.vmap(draw)
        return draw(keys)

    def from_keys(keys):
        keys = iter(keys)
        return lambda shape, low, high: np.asarray(uniform(next(keys), shape, low, high))

    def every_step(keys):
        """time_step -> uniform callback whose j-th call draws with keys[episode, time_step, j]: the draws of every
        episode and step come from one program run at the first call (one a step costs more than the physics)."""
        drawn = {}

        def callback(i, time_step):
            calls = iter(range(keys.shape[2]))

            def draw(shape, low, high):
                j = next(calls)
                key = (j, shape, np.asarray(low).tobytes(), np.asarray(high).tobytes())
                if key not in drawn:
                    drawn[key] = np.asarray(uniform(keys[:, :, j], shape, low, high))
                return drawn[key][i, time_step]

            return draw

        return callback

    pushes, noises, recommands = every_step(push_keys), every_step(noise_keys[:, :, None]), every_step(command_keys)

    def draws(i):
        first_command = from_keys(first_command_keys[i])
        return play.Draws(from_keys(init_keys[i]), from_keys(draw_keys[i]),
                          lambda time_step: pushes(i, time_step), lambda time_step: noises(i, time_step),
                          lambda time_step: first_command if time_step < 0 else recommands(i, time_step))

    return draws


def stage1(species, curriculum=None):
    """The stage-1 folder of `curriculum` (default: the species' committed one)."""
    curriculum = curriculum or curriculum_folder(os.path.join(ROOT, "results"), species)
    return os.path.join(curriculum, f"{species}_stage1")


def replay_evaluation(folder):
    """(evaluate.py's plain-MuJoCo record in `folder`, play.py's summary of the same episodes, the exported policy):
    play.py plays the record's episodes with the env's random stream from the record's seed replayed."""
    with open(os.path.join(folder, "eval_mujoco_mean.json")) as f:
        evaluated = json.load(f)
    episodes, seed = evaluated["episodes"], evaluated["seed"]
    exported = play.load_exported(folder)
    same, _ = play.play_episodes(exported, episodes, seed, episode_draws=env_draws(exported, seed, episodes))
    return evaluated, same, exported


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("curricula", nargs="*", help="curriculum folders, in the order trex, velociraptor, "
                        "brachiosaurus, whose stage 1 is exported and evaluated (default: the committed ones)")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "play_vs_evaluate_cpu.json"))
    args = parser.parse_args(argv)
    start = time.monotonic()
    rows = []
    for species, curriculum in zip(SPECIES, args.curricula or [None] * len(SPECIES)):
        folder = stage1(species, curriculum)
        evaluated, same, exported = replay_evaluation(folder)
        episodes, seed = evaluated["episodes"], evaluated["seed"]
        own, _ = play.play_episodes(exported, episodes, seed)
        rows.append(dict(env=evaluated["env"], folder=os.path.relpath(folder, ROOT), episodes=episodes, seed=seed,
                         evaluate_stood=round(evaluated["success_rate"] * episodes),
                         play_same_stream_stood=round(same["success_rate"] * episodes),
                         play_numpy_stream_stood=round(own["success_rate"] * episodes)))
        print(rows[-1])
    record = dict(command=" ".join(["python benchmarks/play_vs_evaluate.py", *(argv if argv is not None else
                                                                             sys.argv[1:])]),
                  date=time.strftime("%Y-%m-%d"), machine=files.host(["jax", "mujoco", "onnxruntime", "numpy"]),
                  wall_s=round(time.monotonic() - start, 1), runs=rows)
    files.atomic_write(args.out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {os.path.relpath(args.out, ROOT)}")


if __name__ == "__main__":
    main()
