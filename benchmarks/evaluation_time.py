"""How long one MJX evaluation of a trained stage takes on this machine, called alone (as evaluate.py calls it) and
vmapped over one run (as training's gates call it): its program's compile, then its run (compile excluded, the median
of --repeats), with how long the episodes lasted; for this checkout and, with --before,
for another checkout (e.g. a worktree at an older commit) with that checkout's modules, each stage in a fresh process
with the project's XLA CPU flags and no compilation cache. Both must play the same episodes (their summaries are
compared); the figures go to results/evaluation_time_cpu.json, or to --out.

    git worktree add /tmp/before <commit>
    python benchmarks/evaluation_time.py results/trex_curriculum_cpu_seed0/trex_stage3 --episodes 32 --before /tmp/before
"""

import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 2_000_000  # the findings' evaluation seed


def timed(program, key, repeats):
    """(compile seconds, run seconds of each of `repeats` calls, the last call's episodes) of `program(key)`."""
    import jax

    start = time.perf_counter()
    compiled = jax.jit(program).lower(key).compile()
    compile_s = time.perf_counter() - start
    run_s = []
    for _ in range(repeats):
        start = time.perf_counter()
        episodes, _ = jax.block_until_ready(compiled(key))
        run_s.append(time.perf_counter() - start)
    return compile_s, run_s, jax.device_get(episodes)


def measure(stage, episodes, repeats):
    """Figures of `stage`'s evaluation with the modules on sys.path, called alone (as evaluate.py calls it) and
    vmapped over one run (as training's gates call it): compile and run seconds, episode lengths, the summary."""
    import jax
    import numpy as np

    import evaluate
    import evaluation

    env, _, policy, _ = evaluate.env_and_policy(evaluate.parse_args([stage, "--episodes", str(episodes)]))
    rollout = lambda key: evaluation.evaluation_rollout(env, policy, key, episodes)
    key = jax.random.key(SEED)
    figures = {}
    for call, program, call_key in (("alone", rollout, key), ("vmapped", jax.vmap(rollout), key[None])):
        compile_s, run_s, result = timed(program, call_key, repeats)
        figures[call] = dict(compile_s=compile_s, run_s=run_s, run_s_median=float(np.median(run_s)))
    lengths = result["episode_length"][0]
    return dict(figures, episode_length_mean=float(lengths.mean()), episode_length_max=float(lengths.max()),
                time_limit=env.config["episode_length"],
                summary=evaluation.evaluation_summary(env, jax.tree.map(lambda x: x[0], result)))


def fail(message):
    """Report bad input in one line and exit with code 2."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def measured_in(root, stage, episodes, repeats, xla_flags):
    """`measure` in a fresh process importing `root`'s modules."""
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--measure", root, os.path.abspath(stage),
                           "--episodes", str(episodes), "--repeats", str(repeats)], cwd=root, capture_output=True,
                          text=True, env=dict(os.environ, XLA_FLAGS=xla_flags))
    if done.returncode:
        fail(f"{stage} in {root}: {(done.stderr.strip().splitlines() or ['failed'])[-1]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def commit_of(root):
    """The short hash of `root`'s checked-out commit."""
    return subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stages", nargs="+", help="stage run folders (with checkpoint.msgpack)")
    parser.add_argument("--episodes", type=int, default=32, help="episodes per evaluation (a CPU gate's 32)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", metavar="CHECKOUT", help="another checkout to time the same evaluations with")
    parser.add_argument("--out", default=os.path.join(ROOT, "results", "evaluation_time_cpu.json"),
                        help="the record's JSON file (default: results/evaluation_time_cpu.json)")
    parser.add_argument("--measure", metavar="ROOT", help=argparse.SUPPRESS)  # the child process: one stage, one root
    args = parser.parse_args()
    if args.measure:
        sys.path.insert(0, args.measure)
        print(json.dumps(measure(args.stages[0], args.episodes, args.repeats)))
        return

    if args.before and not os.path.isfile(os.path.join(args.before, "evaluation.py")):
        fail(f"--before {args.before}: not a checkout of this project (no evaluation.py)")
    sys.path.insert(0, ROOT)
    import runs
    import training

    roots = dict(checkout=ROOT, **({"before": os.path.abspath(args.before)} if args.before else {}))
    stages = {}
    for stage in args.stages:
        stages[stage] = {label: measured_in(root, stage, args.episodes, args.repeats, training.XLA_CPU_FLAGS)
                         for label, root in roots.items()}
        if args.before:
            stages[stage]["same_episodes"] = stages[stage]["checkout"]["summary"] == stages[stage]["before"]["summary"]
        print(stage, {f"{label} {call}": round(figures[call]["run_s_median"], 2)
                      for label, figures in stages[stage].items() if isinstance(figures, dict)
                      for call in ("alone", "vmapped")}, "s per evaluation", flush=True)
    record = dict(episodes=args.episodes, seed=SEED, xla_flags=training.XLA_CPU_FLAGS, commit=commit_of(ROOT),
                  before_commit=commit_of(args.before) if args.before else None, stages=stages,
                  command=" ".join(["python benchmarks/evaluation_time.py", *sys.argv[1:]]),
                  date=time.strftime("%Y-%m-%d"), machine=runs.machine())
    runs.atomic_write(args.out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
