"""How a policy's episodes end: success, time-out or fall, and where each kind of end left the body (every task
measure at the last step, as quartiles over the episodes that ended that way).

    python benchmarks/episode_ends.py results/trex_randomized2_cpu_seed0/trex_stage3 --episodes 128

A stage-3 policy that times out with its tip next to the target (tip_distance just above the success radius) is
content to hover there; one that times out far away never found the target. Mean action unless --sampled, in the
policy's own config (randomization and pushes as trained), seed apart from training's and the gates'. Writes
<folder>/episode_ends_<mean or sampled>.json.
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import evaluate  # noqa: E402  first: it chooses the log level and OpenGL backend before JAX and MuJoCo load
import numpy as np  # noqa: E402

import runs  # noqa: E402
import training  # noqa: E402
from benchmarks import fall_causes  # noqa: E402


def episode_ends(env, episodes):
    """{success, time-out, fall: boolean per episode}; a task without success has time-outs and falls only."""
    reached = np.asarray(episodes["reached_time_limit"])
    success = np.asarray(env.episode_success(episodes)) if env.episode_success else np.zeros_like(reached)
    return {"success": success, "time-out": reached & ~success, "fall": ~reached & ~success}


def main(argv=None):
    args = fall_causes.policy_arguments(__doc__.splitlines()[0], 128).parse_args(argv)
    training.enable_compilation_cache()
    start = time.monotonic()
    path = os.path.join(args.folder, runs.CHECKPOINT)
    name, config, checkpoint = evaluate.checkpoint_settings(path, None, {})
    env, episodes = fall_causes.policy_episodes(name, config, path, checkpoint, not args.sampled, args.episodes,
                                                args.seed)
    measures = [k for k in episodes if k not in ("episode_return", "reached_time_limit")]
    report = dict(folder=os.path.relpath(args.folder, ROOT), actions="sampled" if args.sampled else "mean",
                  episodes=args.episodes, seed=args.seed, machine=runs.machine(), ends={})
    print(f"{name}, {report['actions']} action, {args.episodes} episodes")
    for end, chosen in episode_ends(env, episodes).items():
        quartiles = {k: np.quantile(episodes[k][chosen], [0.25, 0.5, 0.75]).tolist() for k in measures
                     if chosen.any()}
        report["ends"][end] = dict(share=float(np.mean(chosen)), episodes=int(np.sum(chosen)), quartiles=quartiles)
        print(f"  {end}: {np.mean(chosen):.3f} ({np.sum(chosen)} episodes)")
        for k, q in quartiles.items():
            print(f"    {k:24s} " + " / ".join(f"{v:.3g}" for v in q))
    report["wall_s"] = time.monotonic() - start
    runs.atomic_write(os.path.join(args.folder, f"episode_ends_{report['actions']}.json"),
                      json.dumps(report, indent=1) + "\n")


if __name__ == "__main__":
    main()
