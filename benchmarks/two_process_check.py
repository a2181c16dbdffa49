"""Check the multi-host path on one machine: the same tiny seed group (2 seeds) trained by two processes joined with
`--distributed` (one CPU device each: a seed per process), by one process with two CPU devices (a seed per device, the
same layout without hosts), and by one process on one device; writes how closely every member's returns agree to
results/two_process_check_<env>.json.

    python benchmarks/two_process_check.py --env trex_stage1

It exercises what a multi-host run does (jax.distributed.initialize, a mesh over both processes' devices, gathering
for checkpoints, only process 0 writing), with local CPU processes standing in for hosts.
"""

import argparse
import csv
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import runs  # noqa: E402

TINY = ["--num-seeds", "2", "--num-envs", "8", "--total-timesteps", "960", "--set", "num_steps=20",
        "--set", "num_minibatches=4", "--set", "eval_episodes=4", "--set", "episode_length=30", "--set", "log_every=2"]


def train(env_name, out, distributed=False, devices=1):
    """Start the CLI (two processes with `distributed`) on `devices` CPU devices per process, wait, and return
    (seconds, the processes' outputs)."""
    command = [sys.executable, os.path.join(ROOT, "ppo_mjx.py"), "--env", env_name, *TINY, "--out", out]
    with socket.socket() as s:  # a free port for the coordinator
        s.bind(("localhost", 0))
        port = s.getsockname()[1]
    ranks = [["--distributed", f"localhost:{port},2,{rank}"] for rank in range(2)] if distributed else [[]]
    start = time.monotonic()
    env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")
    processes = [subprocess.Popen(command + rank, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                  cwd=ROOT, env=env) for rank in ranks]
    outputs = [p.communicate(timeout=1800)[0] for p in processes]
    if any(p.returncode for p in processes):
        sys.exit("training failed:\n" + "\n".join(output[-3000:] for output in outputs))
    return time.monotonic() - start, outputs


def return_differences(folder, reference):
    """Largest relative differences of each member's training episode return (every update) and evaluation return.
    Different layouts compile different programs, whose float rounding the T-Rex's contacts amplify."""
    train, evaluation = [], []
    for member in ["seed0", "seed1"]:
        rows = [list(csv.DictReader(open(os.path.join(f, member, "metrics.csv")))) for f in (folder, reference)]
        assert len(rows[0]) == len(rows[1]), "the runs did different numbers of updates"
        train += [abs(float(row["episode_return"]) / float(ref["episode_return"]) - 1.0) for row, ref in zip(*rows)
                  if ref["episode_return"] != "nan"]
        returns = [json.load(open(os.path.join(f, member, "eval.json")))["episode_return"] for f in (folder, reference)]
        evaluation.append(abs(returns[0] / returns[1] - 1.0))
    return max(train), max(evaluation)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="trex_stage1")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="two_process_")
    folders = {name: os.path.join(work, name) for name in ["one_device", "two_devices", "two_processes"]}
    seconds = {"one_device": train(args.env, folders["one_device"])[0],
               "two_devices": train(args.env, folders["two_devices"], devices=2)[0]}
    seconds["two_processes"], outputs = train(args.env, folders["two_processes"], distributed=True)
    differences = {f"{a}_vs_{b}": dict(zip(["train_return", "eval_return"], return_differences(folders[a], folders[b])))
                   for a, b in [("two_processes", "two_devices"), ("two_devices", "one_device")]}
    result = dict(env=args.env, cli_arguments=TINY, wall_s=seconds,
                  two_processes_saw_two_devices="2 run(s) of 8 envs on 2 device(s)" in outputs[0],
                  largest_relative_differences=differences,
                  two_processes_equal_two_devices=max(differences["two_processes_vs_two_devices"].values()) == 0.0,
                  command=" ".join(["python", "benchmarks/two_process_check.py", *sys.argv[1:]]),
                  date=time.strftime("%Y-%m-%d"), machine=runs.machine())
    print(json.dumps(result, indent=1))
    runs.atomic_write(os.path.join(ROOT, "results", f"two_process_check_{args.env}.json"),
                      json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
