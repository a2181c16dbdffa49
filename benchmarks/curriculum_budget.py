"""Does each species' curriculum fit the 2-h budget when the three train side by side from scratch on this machine?

    python benchmarks/curriculum_budget.py                                   # trains the three, then reports
    python benchmarks/curriculum_budget.py --summarize results/runs/budget   # reports three already trained

Each trains with `python ppo_mjx.py --env <species> --curriculum --seed 0 --out <parent>/<species>_curriculum_<backend>
_seed0`, every default config, HOME an empty folder of its own (so its compilation caches start empty), the three
started together and nothing else run beside them; each one's output goes to <parent>/<species>.console.log. On a
2-core CPU this takes about 2 h. The report, results/curriculum_budget_<backend>.json and .md, holds per curriculum the
whole run's wall time (curriculum.json: compiling, gate evaluations and the final evaluation included), each stage's
updates (`train_wall_s`), steps and gate, the seconds each training program took to compile (console), the time
outside updates, and whether the run fits BUDGET_S. A curriculum trained in more than one session (resumed) is no
timing: one line and exit code 2, as for a folder that holds no finished curriculum.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import files  # noqa: E402
from benchmarks import SPECIES, curriculum_folder  # noqa: E402

STAGES = 3
BUDGET_S = 2 * 3600  # each curriculum, the three side by side


def fail(message):
    print(f"curriculum_budget: {message}", file=sys.stderr)
    sys.exit(2)


def console_path(parent, species):
    return os.path.join(parent, f"{species}.console.log")


def train_side_by_side(parent, backend):
    """Start the three curricula together, each with an empty HOME, and wait for all; fails if one fails."""
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
                cwd=ROOT, env=dict(os.environ, HOME=home), stdout=console, stderr=subprocess.STDOUT))
    failed = [species for species, proc in zip(SPECIES, procs) if proc.wait() != 0]
    if failed:
        fail(f"training failed for {', '.join(failed)}: see {parent}/<species>.console.log")


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parent", default=os.path.join(ROOT, "results", "runs", "budget"),
                        help="where the three curricula train (a folder that holds none of them)")
    parser.add_argument("--summarize", metavar="PARENT", help="report the three curricula already trained in PARENT")
    parser.add_argument("--backend", default="cpu", help="the backend named in the run folders and the report")
    parser.add_argument("--out", default=None, help="default: results/curriculum_budget_<backend>.json (and .md)")
    args = parser.parse_args(argv)
    parent = args.summarize or args.parent
    if not args.summarize:
        train_side_by_side(parent, args.backend)
    rows = [curriculum_timing(parent, species, args.backend) for species in SPECIES]
    out = args.out or os.path.join(ROOT, "results", f"curriculum_budget_{args.backend}.json")
    command = "python benchmarks/curriculum_budget.py" + (f" --summarize {os.path.relpath(parent, ROOT)}"
                                                         if args.summarize else "")
    files.write_record(out, dict(budget_s=BUDGET_S, curricula=rows), command,
                       ("jax", "jaxlib", "mujoco", "mujoco-mjx", "flax"))
    files.atomic_write(os.path.splitext(out)[0] + ".md", markdown(rows, command))
    for r in rows:
        print(f"{r['species']}: {r['wall_s'] / 60:.1f} min, {'within' if r['within_budget'] else 'past'} the budget")


if __name__ == "__main__":
    main()
