"""Does each species' curriculum fit the 2-h budget when the three train side by side from scratch on this machine?

    python benchmarks/curriculum_budget.py                                   # trains the three, then reports
    python benchmarks/curriculum_budget.py --summarize results/runs/budget   # reports three already trained
    python benchmarks/curriculum_budget.py --projection 10                   # this machine's speed in 10 min

Each trains with `python ppo_mjx.py --env <species> --curriculum --seed 0 --out <parent>/<species>_curriculum_<backend>
_seed0`, every default config, HOME an empty folder of its own (so its compilation caches start empty), the three
started together and nothing else run beside them; each one's output goes to <parent>/<species>.console.log. On a
2-core CPU this takes about 2 h. The report, results/curriculum_budget_<backend>.json and .md, holds per curriculum the
whole run's wall time (curriculum.json: compiling, gate evaluations and the final evaluation included), each stage's
updates (`train_wall_s`), steps and gate, the seconds each training program took to compile (console), the time
outside updates, and whether the run fits BUDGET_S. A curriculum trained in more than one session (resumed) is no
timing: one line and exit code 2, as for a folder that holds no finished curriculum.

A timing measures the machine as much as the curricula: the same code trained 0.6-1.0 times as fast on different days
and machines. `--projection MINUTES` starts the three as a timing does, stops them after MINUTES (Ctrl-C: each writes
its checkpoint), and compares each one's stage-1 env steps/s with the recorded timing's (the report above): its speed
and its whole run scaled by it, printed and written to results/curriculum_budget_projection_<backend>.json. Ten
minutes tell whether a 2-h timing here would time the machine or the curricula.
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

import files  # noqa: E402
from benchmarks import SPECIES, curriculum_folder, progress_line  # noqa: E402

STAGES = 3
BUDGET_S = 2 * 3600  # each curriculum, the three side by side
WARMUP_UPDATES = 32  # a projection leaves out the first progress lines: they run while the others still compile
PACKAGES = ("jax", "jaxlib", "mujoco", "mujoco-mjx", "flax")  # whose versions each record names


def fail(message):
    print(f"curriculum_budget: {message}", file=sys.stderr)
    sys.exit(2)


def console_path(parent, species):
    return os.path.join(parent, f"{species}.console.log")


def train_side_by_side(parent, backend, stop_after_s=None):
    """Start the three curricula together, each with an empty HOME, and wait for all, or stop them after
    `stop_after_s`; fails if one fails. Each runs in a session of its own, so that Ctrl-C reaches it once, from here."""
    for species in SPECIES:
        if os.path.exists(curriculum_folder(parent, species, backend)):
            fail(f"{curriculum_folder(parent, species, backend)} exists: a timing starts from scratch (choose another "
                 "--parent)")
    os.makedirs(parent, exist_ok=True)
    procs = []
    for species in SPECIES:
        home = tempfile.mkdtemp(prefix=f"budget-home-{species}-")
        with open(console_path(parent, species), "w") as console:  # the child holds its own copy of the handle
            procs.append(subprocess.Popen(
                [sys.executable, "ppo_mjx.py", "--env", species, "--curriculum", "--seed", "0", "--out",
                 curriculum_folder(parent, species, backend)],
                cwd=ROOT, env=dict(os.environ, HOME=home), stdout=console, stderr=subprocess.STDOUT,
                start_new_session=True))
    deadline = None if stop_after_s is None else time.monotonic() + stop_after_s
    try:
        for proc in procs:
            try:
                proc.wait(None if deadline is None else max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                break
    except KeyboardInterrupt:
        stop(procs)
        fail(f"stopped by Ctrl-C: each run keeps its last checkpoint in {parent}; no report")
    if deadline is not None:
        stop(procs)
    finished = (0, 130) if deadline is not None else (0,)  # 130: stopped by Ctrl-C, as cli.py exits then
    failed = [species for species, proc in zip(SPECIES, procs) if proc.wait() not in finished]
    if failed:
        fail(f"training failed for {', '.join(failed)}: see {parent}/<species>.console.log")


def stop(procs):
    """Ctrl-C to each training still running, then wait for it: it stops after its chunk and writes a checkpoint."""
    for proc in procs:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
    for proc in procs:
        proc.wait()


def curriculum_timing(parent, species, backend):
    """One curriculum's wall time, its stages' update times and steps, compile seconds and the time outside updates."""
    folder = curriculum_folder(parent, species, backend)
    try:
        with open(os.path.join(folder, "curriculum.json")) as f:
            record = json.load(f)
        with open(console_path(parent, species)) as f:
            console = f.read()
    except (OSError, ValueError) as e:
        fail(f"no finished curriculum of {species} in {parent}: {e}")
    if len(record["sessions"]) != 1 or len(record["stages"]) != STAGES:
        fail(f"{folder} is not one whole run ({len(record['sessions'])} sessions, {len(record['stages'])} stages)")
    session = record["sessions"][0]
    stages = [dict(stage=s["stage"], env_steps=s["env_steps"], train_wall_s=round(s["train_wall_s"], 1),
                   gate_passed=s["gate_passed"]) for s in record["stages"]]
    wall_s = session["wall_s"]
    return dict(species=species, folder=os.path.relpath(folder, ROOT), machine=session["machine"],
                wall_s=round(wall_s, 1), stages=stages,
                compiled_s=[int(s) for s in re.findall(r"^compiled in (\d+)s$", console, re.M)],
                outside_updates_s=round(wall_s - sum(s["train_wall_s"] for s in stages), 1),
                within_budget=wall_s <= BUDGET_S)


def stage1_rate(console):
    """Mean env steps/s of a console's stage-1 progress lines after WARMUP_UPDATES; None where there are none."""
    lines = filter(None, map(progress_line, console.split("stage 2/3")[0].splitlines()))
    rates = [rate for update, rate in lines if update > WARMUP_UPDATES]
    return sum(rates) / len(rates) if rates else None


def projection(parent, recorded):
    """Per curriculum: its stage-1 env steps/s here, the recorded timing's (`recorded`, a report), the speed that
    makes, and the recorded whole run divided by it (compiling and evaluations taken to scale alike)."""
    rows = []
    for row in recorded["curricula"]:
        try:
            with open(console_path(parent, row["species"])) as f:
                rate = stage1_rate(f.read())
        except OSError as e:
            fail(f"no console of {row['species']} in {parent}: {e}")
        if rate is None:
            fail(f"{console_path(parent, row['species'])} has no stage-1 progress past update {WARMUP_UPDATES}: "
                 "give the projection more minutes")
        stage1 = row["stages"][0]
        recorded_rate = stage1["env_steps"] / stage1["train_wall_s"]
        projected_wall_s = row["wall_s"] * recorded_rate / rate
        rows.append(dict(species=row["species"], env_steps_per_s=round(rate), recorded_env_steps_per_s=round(
            recorded_rate), speed=round(rate / recorded_rate, 3), projected_wall_s=round(projected_wall_s, 1),
            within_budget=projected_wall_s <= BUDGET_S))
    return rows


def markdown(rows, command):
    machine = rows[0]["machine"]
    lines = ["# The curricula's budget: three side by side from scratch", "",
             "Each `python ppo_mjx.py --env <species> --curriculum --seed 0`, every default config, HOME an empty "
             f"folder, the three started together, on {machine['cpu']} ({machine['cpu_count']} cores, "
             f"{machine['backend']}), jax {machine['versions']['jax']}, mujoco {machine['versions']['mujoco']}; "
             f"reported by `{command}`. Budget: {BUDGET_S / 60:.0f} min each; whole runs include compiling, the gate "
             "evaluations and each stage's final evaluation.", "",
             "| curriculum | whole run (min) | within budget | updates per stage (min) | steps per stage | "
             "outside updates (min) | compiled in (s) |", "|---|---:|---|---|---|---:|---|"]
    for r in rows:
        updates = ", ".join(f"{s['train_wall_s'] / 60:.1f}" for s in r["stages"])
        steps = ", ".join(f"{s['env_steps'] / 1e6:.2f}M" + ("" if s["gate_passed"] else " (cap)") for s in r["stages"])
        compiled = ", ".join(str(s) for s in r["compiled_s"])
        lines.append(f"| {r['species']} | {r['wall_s'] / 60:.1f} | {'yes' if r['within_budget'] else 'no'} | "
                     f"{updates} | {steps} | {r['outside_updates_s'] / 60:.1f} | {compiled} |")
    return "\n".join(lines) + "\n"


def report_path(backend):
    return os.path.join(ROOT, "results", f"curriculum_budget_{backend}.json")


def project(args):
    """--projection: the recorded timing read first (nothing trains without one), the three trained for the minutes
    given, the projection printed and written."""
    if args.projection <= 0:
        fail(f"--projection {args.projection:g}: minutes above 0")
    try:
        with open(report_path(args.backend)) as f:
            recorded = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"no recorded timing to project from: {e}")
    parent = args.parent or tempfile.mkdtemp(prefix="budget-projection-")
    train_side_by_side(parent, args.backend, stop_after_s=args.projection * 60)
    rows = projection(parent, recorded)
    out = args.out or os.path.join(ROOT, "results", f"curriculum_budget_projection_{args.backend}.json")
    files.write_record(out, dict(budget_s=BUDGET_S, minutes=args.projection, recorded=recorded["machine"]["cpu"],
                                 curricula=rows), f"python benchmarks/curriculum_budget.py --projection "
                       f"{args.projection:g}", PACKAGES)
    for r in rows:
        print(f"{r['species']}: {r['env_steps_per_s']:,} env steps/s in stage 1 against "
              f"{r['recorded_env_steps_per_s']:,} recorded ({r['speed']:.2f}x): the whole curriculum about "
              f"{r['projected_wall_s'] / 60:.0f} min, {'within' if r['within_budget'] else 'past'} the budget")
    print(f"wrote {out}; the stopped runs are in {parent}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parent", help="where the three curricula train, a folder that holds none of them (default: "
                        "results/runs/budget; with --projection, a new temporary folder)")
    parser.add_argument("--summarize", metavar="PARENT", help="report the three curricula already trained in PARENT")
    parser.add_argument("--projection", type=float, metavar="MINUTES",
                        help="train the three for MINUTES and project the recorded timing onto this machine's speed")
    parser.add_argument("--backend", default="cpu", help="the backend named in the run folders and the report")
    parser.add_argument("--out", default=None, help="default: results/curriculum_budget_<backend>.json (and .md); "
                        "with --projection, results/curriculum_budget_projection_<backend>.json")
    args = parser.parse_args(argv)
    if args.projection is not None:
        project(args)
        return
    parent = args.summarize or args.parent or os.path.join(ROOT, "results", "runs", "budget")
    if not args.summarize:
        train_side_by_side(parent, args.backend)
    rows = [curriculum_timing(parent, species, args.backend) for species in SPECIES]
    out = args.out or report_path(args.backend)
    command = "python benchmarks/curriculum_budget.py" + (f" --summarize {os.path.relpath(parent, ROOT)}"
                                                         if args.summarize else "")
    files.write_record(out, dict(budget_s=BUDGET_S, curricula=rows), command, PACKAGES)
    files.atomic_write(os.path.splitext(out)[0] + ".md", markdown(rows, command))
    for r in rows:
        print(f"{r['species']}: {r['wall_s'] / 60:.1f} min, {'within' if r['within_budget'] else 'past'} the budget")


if __name__ == "__main__":
    main()
