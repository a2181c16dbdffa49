"""The do-nothing baseline: evaluate action 0 (hold the home pose) with the same evaluation as trained policies, so a
trained policy's figures can be read against it. Writes results/zero_action_<env>.json.

    python benchmarks/zero_action_eval.py --env trex_stage1 --episodes 64
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import envs  # noqa: E402
import ppo_mjx  # noqa: E402
from benchmarks.throughput import machine  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="trex_stage1")
    parser.add_argument("--episodes", type=int, default=64)
    parser.add_argument("--seed", type=int, default=1_000_000)
    args = parser.parse_args()
    env = envs.make_env(args.env)
    episodes = ppo_mjx.evaluate(env, lambda obs: jnp.zeros(obs.shape[:-1] + (env.action_size,)),
                                jax.random.key(args.seed), args.episodes)
    summary = ppo_mjx.evaluation_summary(episodes)
    summary |= dict(env=args.env, policy="zero action", episodes=args.episodes,
                    command=" ".join(["python", "benchmarks/zero_action_eval.py", *sys.argv[1:]]),
                    date=time.strftime("%Y-%m-%d"), machine=machine())
    print(json.dumps(summary, indent=1))
    ppo_mjx.atomic_write(os.path.join(ROOT, "results", f"zero_action_{args.env}.json"), json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
