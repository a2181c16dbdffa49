"""How many env steps/s do trainings side by side get in all, under each XLA threading setting? The three
curricula are trained side by side on one machine; on a 2-core CPU three processes each running XLA's default thread
pool contend for two cores. For each count of `--processes` and each setting, this starts that many workers (one per
env given, cycling), each timing the full jitted PPO train (benchmarks/throughput.py's (b)) over one window that all
of them share, and sums their steps/s.

    python benchmarks/side_by_side.py --env trex_stage1 velociraptor_stage1 brachiosaurus_stage1 --processes 1 2 3

Settings: "default" (XLA's thread pool), "one_thread" (XLA_FLAGS=--xla_cpu_multi_thread_eigen=false
intra_op_parallelism_threads=1: each process computes on one thread). Writes results/side_by_side_<backend>.json.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import startup  # noqa: E402

startup.before_jax()

import jax  # noqa: E402

import files  # noqa: E402
import training  # noqa: E402
from benchmarks.throughput import prepare  # noqa: E402

SETTINGS = dict(default="", one_thread="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1")


def worker(env_name, num_envs, updates, repeats, barrier, count, out):
    """Compile and warm up one PPO train call, wait until `count` workers are ready (files in `barrier`), time
    `repeats` calls, and write {env, steps per call, seconds per call} to `out`."""
    training.enable_compilation_cache()
    config, calls, _ = prepare(env_name, num_envs, updates)
    open(os.path.join(barrier, f"{os.getpid()}"), "w").close()
    while len(os.listdir(barrier)) < count:
        time.sleep(0.2)
    seconds = [calls["train"](rep) for rep in range(1, repeats + 1)]
    record = dict(env=env_name, backend=jax.default_backend(), steps=num_envs * config["num_steps"] * updates,
                  seconds=seconds)
    with open(out, "w") as f:
        json.dump(record, f)


def side_by_side(env_names, processes, num_envs, updates, repeats, xla_flags):
    """[worker records] of `processes` workers run at once with XLA_FLAGS=`xla_flags`."""
    with tempfile.TemporaryDirectory() as folder:
        barrier = os.path.join(folder, "ready")
        os.mkdir(barrier)
        outs = [os.path.join(folder, f"worker{i}.json") for i in range(processes)]
        environment = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} {xla_flags}".strip())
        workers = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--worker", out, "--barrier", barrier,
                                     "--processes", str(processes), "--env", env_names[i % len(env_names)],
                                     "--num-envs", str(num_envs), "--updates", str(updates), "--repeats",
                                     str(repeats)], env=environment, cwd=ROOT) for i, out in enumerate(outs)]
        if any(w.wait() for w in workers):
            raise SystemExit("a worker failed")
        records = []
        for out in outs:
            with open(out) as f:
                records.append(json.load(f))
    return records


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", nargs="+", default=["trex_stage1"])
    parser.add_argument("--processes", type=int, nargs="+", default=[3], help="how many side by side; each count in turn")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--updates", type=int, default=4, help="PPO updates per timed call")
    parser.add_argument("--repeats", type=int, default=3, help="timed calls per worker")
    parser.add_argument("--settings", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--barrier", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.env[0], args.num_envs, args.updates, args.repeats, args.barrier, args.processes[0],
                      args.worker)

    result = dict(command=" ".join(["python", "benchmarks/side_by_side.py", *sys.argv[1:]]), envs=args.env,
                  num_envs=args.num_envs, updates_per_call=args.updates, runs=[])
    for processes in args.processes:
        for setting in args.settings:
            start = time.perf_counter()
            records = side_by_side(args.env, processes, args.num_envs, args.updates, args.repeats, SETTINGS[setting])
            each = [r["steps"] * len(r["seconds"]) / sum(r["seconds"]) for r in records]
            result["runs"].append(dict(processes=processes, setting=setting, xla_flags=SETTINGS[setting],
                                       workers=records, steps_per_s=each, total_steps_per_s=sum(each),
                                       wall_s=time.perf_counter() - start))
            print(f"{processes} x {setting:>10}: {' + '.join(f'{s:,.0f}' for s in each)} = {sum(each):,.0f} env "
                  f"steps/s", flush=True)
    result |= dict(date=time.strftime("%Y-%m-%d"), machine=files.host(["jax", "jaxlib", "mujoco", "mujoco-mjx"]),
                   backend=records[0]["backend"])
    path = os.path.join(ROOT, "results", f"side_by_side_{result['backend']}.json")
    files.atomic_write(path, json.dumps(result, indent=1) + "\n")
    print(f"-> {path}")


if __name__ == "__main__":
    main()
