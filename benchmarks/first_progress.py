"""How soon does the README's first command show progress, and what does it print? Starts
`python ppo_mjx.py --env trex_stage1 --seed 0` (no other flags) with a fresh compilation cache (cold), then again
with the cache that run filled (warm); each is stopped with Ctrl-C after its first progress lines. Records the seconds
from start to each milestone line, the training throughput of the progress lines, and every XLA/glog line printed.

    python benchmarks/first_progress.py                     # writes results/first_progress_<backend>.json and .md
    python benchmarks/first_progress.py --progress-lines 3 --xla-flags=--xla_cpu_max_isa=AVX512 --name _avx512
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import progress_line  # noqa: E402

COMMAND = ["ppo_mjx.py", "--env", "trex_stage1", "--seed", "0"]
MILESTONES = {"sizing": "no GPU found", "env": "env trex_stage1:", "compiling": "compiling the training program",
              "compiled": "compiled in", "first_progress": "update "}
LOG_LINE = re.compile(r"^[EWF]\d{4} ")  # glog: severity, then the date
ENVIRONMENT = dict(os.environ)  # as the user's shell gave it: importing jax here sets TF_CPP_MIN_LOG_LEVEL=1


def start_once(home, progress_lines, xla_flags, out):
    """Run the command with HOME=`home` (its compilation cache lives there) until `progress_lines` progress lines,
    then Ctrl-C. Returns what was seen."""
    env = dict(ENVIRONMENT, HOME=home, PYTHONUNBUFFERED="1")
    if xla_flags:
        env["XLA_FLAGS"] = xla_flags
    start = time.monotonic()
    process = subprocess.Popen([sys.executable, *COMMAND, "--out", out], cwd=ROOT, env=env, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    seen, lines, log_lines, progress = {}, [], [], []
    for line in process.stdout:
        elapsed = round(time.monotonic() - start, 1)
        lines.append(f"{elapsed:7.1f}s  {line.rstrip()}")
        if LOG_LINE.match(line):
            log_lines.append(line.rstrip())
        for name, prefix in MILESTONES.items():
            if name not in seen and line.startswith(prefix):
                seen[name] = elapsed
        parsed = progress_line(line)
        if parsed:
            progress.append(parsed[1])
            if len(progress) == progress_lines:
                process.send_signal(signal.SIGINT)
    process.wait()
    return dict(seconds_to=seen, steps_per_s=progress, log_lines=log_lines, exit_code=process.returncode,
                output=lines)


def markdown(report):
    rows = ["| start | sizing line | compiling line | compiled | first progress line | steps/s (progress lines) | "
            "XLA log lines |", "|---|---:|---:|---:|---:|---|---:|"]
    for name in ("cold", "warm"):
        run = report[name]
        cell = lambda key: f"{run['seconds_to'][key]:.0f} s" if key in run["seconds_to"] else "-"
        rows.append(f"| {name} cache | {cell('sizing')} | {cell('compiling')} | {cell('compiled')} | "
                    f"{cell('first_progress')} | {', '.join(f'{s:,.0f}' for s in run['steps_per_s'])} | "
                    f"{len(run['log_lines'])} |")
    machine = report["machine"]
    return "\n".join([f"# Time to the first progress line: `python {' '.join(COMMAND)}`", "",
                      f"{machine['backend']} ({machine['cpu']}, {machine['cpu_count']} cores), jax "
                      f"{machine['versions']['jax']}, mujoco {machine['versions']['mujoco']}; {report['date']}; "
                      f"XLA_FLAGS from the environment: {report['xla_flags'] or '(none)'}; command: "
                      f"`{report['command']}`", "", *rows, ""]) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--progress-lines", type=int, default=2, help="progress lines to wait for before Ctrl-C")
    parser.add_argument("--xla-flags", default="", help="XLA_FLAGS for the runs (default: the trainer's own)")
    parser.add_argument("--name", default="", help="suffix of the output files")
    args = parser.parse_args()
    import runs  # after argparse: --help needs no JAX

    report = dict(command=" ".join(["python", *COMMAND]), xla_flags=args.xla_flags, date=time.strftime("%Y-%m-%d"),
                  machine=runs.machine())
    with tempfile.TemporaryDirectory() as home:
        for name in ("cold", "warm"):
            report[name] = start_once(home, args.progress_lines, args.xla_flags, os.path.join(home, name))
            print(f"{name}: {report[name]['seconds_to']}, steps/s {report[name]['steps_per_s']}, "
                  f"{len(report[name]['log_lines'])} XLA log lines", flush=True)
    stem = os.path.join(ROOT, "results", f"first_progress_{report['machine']['backend']}{args.name}")
    runs.atomic_write(stem + ".json", json.dumps(report, indent=1))
    runs.atomic_write(stem + ".md", markdown(report))
    print(f"wrote {stem}.json and .md")


if __name__ == "__main__":
    main()
