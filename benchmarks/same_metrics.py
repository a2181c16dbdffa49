"""Does a code change leave training unchanged? Trains a short fixed-seed run (T-Rex stage 1 unless --env) with a
reference commit (in a temporary git worktree) and with a checkout, evaluates each run with its checkout's evaluate.py
(sampled and mean actions) and compares bit for bit every metrics.csv value (the CSV's strings: repr of the floats) and
every value of the training's eval.json and of the evaluation JSONs, except wall times, throughput, dates, commands,
paths and machine records.

    python benchmarks/same_metrics.py --against 1bfc6fb                 # this working tree against commit 1bfc6fb
    python benchmarks/same_metrics.py --against HEAD --root OTHER_CHECKOUT --no-record
    python benchmarks/same_metrics.py --against HEAD --env trex_stage2 --no-record     # a change to the velocity task
    python benchmarks/same_metrics.py --against HEAD --both privileged_critic=True --no-record  # a path off by default
    python benchmarks/same_metrics.py --against 1bafe1a --set randomize.enabled=False --set eval_actions=sampled \
        --set push_speed=0.4 --set push_interval=50 --set ent_coef=0.001 --set gamma=0.97
    python benchmarks/same_metrics.py --against HEAD --program --both symmetry_augmentation=True --no-record

`--program` trains nothing: it compares the training programs as lowered to StableHLO (source locations dropped) for
16 envs and 2 updates, the env's defaults in them, in a minute or two. Equal programs train equal numbers on any
machine, so a change that leaves the program as it was (comments, names, moved code) needs no training; a difference
proves nothing (reordered but equivalent operations differ too), and the check by training decides. It leaves
evaluate.py's program out.

`--set` gives the checkout under test settings its reference predates (they turn new features off); `--both` gives
both checkouts a setting, to compare a path the defaults leave off. Keys that only one side's JSON has are listed
apart, not compared.

Both are trained here, one after the other, with the shell's environment and one XLA instruction set (AVX-512 and
AVX2 programs round differently), because floating-point results differ between CPUs: a record made on another CPU
differed at update 3 although both commits agreed when trained side by side. --record only writes a note of what was
run; nothing is ever compared with a note.
"""

import argparse
import csv
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time
from importlib import metadata

ENVIRONMENT = dict(os.environ)  # the shell's; a process that imports jax sets TF_CPP_MIN_LOG_LEVEL=1 in its own
# Must match what the project's entry points set (training.py): AVX2 programs on x86, so cached programs load cleanly.
XLA_CPU_FLAGS = "--xla_cpu_max_isa=AVX2" if platform.machine() in ("x86_64", "AMD64") else ""
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# 8 updates of 32 envs x 20 steps; 50-step episodes so that truncations and episode returns occur.
ARGS = ["--seed", "0", "--num-envs", "32", "--total-timesteps", "5120",
        "--set", "num_minibatches=4", "--set", "episode_length=50", "--set", "eval_episodes=4",
        "--set", "log_every=4", "--set", "checkpoint_every=8"]
EVALUATE = ["--episodes", "8", "--seed", "123", "--physics", "mjx", "--out", "FILE"]  # FILE: a JSON in a temp folder
# An older evaluate.py sampled by default and had no --sampled; an older one still had no --mean.
EVALUATIONS = {"sampled": ["--sampled"], "mean": ["--mean"]}
NOT_COMPARED = {"wall_s", "steps_per_s", "train_wall_s", "machine", "backend", "device", "date", "command"}


def fail(message):
    """Report bad input in one line and exit with code 2."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def git(root, *args, error=None):
    """stdout of a git command run in `root`."""
    done = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    if done.returncode:
        fail(error or f"git {' '.join(args)}: {(done.stderr.strip().splitlines() or ['failed'])[-1]}")
    return done.stdout.strip()


def run(root, script, *args, what=None):
    """stdout of `root`'s script run in `root` with the environment that the other checkout's script gets too; `what`
    names the script in a failure (default: the script)."""
    done = subprocess.run([sys.executable, script, *args], cwd=root, capture_output=True, text=True,
                          env=dict(ENVIRONMENT, XLA_FLAGS=XLA_CPU_FLAGS))
    if done.returncode:
        fail(f"{what or script} in {root} failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    return done.stdout


def flatten(values, prefix):
    """{prefix + dotted key: repr} of a JSON object's compared values."""
    flat = {}
    for key, value in values.items():
        if key in NOT_COMPARED or isinstance(value, str) and os.path.isabs(value):
            continue
        if isinstance(value, dict):
            flat.update(flatten(value, f"{prefix}{key}."))
        else:
            flat[prefix + key] = repr(value)  # repr round-trips floats exactly and keeps nan and -0.0 apart
    return flat


def train_and_evaluate(root, evaluations, tmp, env, settings=()):
    """({source and key: value}, updates) of the fixed run of `env` trained (with `settings`, KEY=VALUE) and evaluated
    by `root`'s scripts."""
    out = os.path.join(tmp, "run")
    run(root, "ppo_mjx.py", "--env", env, *ARGS, *[a for s in settings for a in ("--set", s)], "--out", out)
    with open(os.path.join(out, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    values = {f"metrics.csv update {i} {k}": v for i, row in enumerate(rows, 1) for k, v in row.items()
              if k not in NOT_COMPARED}
    with open(os.path.join(out, "eval.json")) as f:
        values.update(flatten(json.load(f), "eval.json "))
    for name, flags in evaluations.items():
        file = os.path.join(tmp, f"{name}.json")
        run(root, "evaluate.py", out, *[file if a == "FILE" else a for a in EVALUATE], *flags)
        with open(file) as f:
            values.update(flatten(json.load(f), f"evaluate.py {name} "))
    return values, len(rows)


# Run in a checkout (python -c: its folder on sys.path): the sha256 of its train program for argv's env and KEY=VALUEs.
LOWER_PROGRAM = """
import hashlib, re, sys
import jax, configs, envs, ppo_mjx
name, settings = sys.argv[1], configs.parse_overrides(sys.argv[2:])
config = configs.get_config(name, dict(settings, num_envs=16, total_timesteps=640, num_minibatches=4))
text = jax.jit(ppo_mjx.make_train(config, envs.env_from_config(name, config))).lower(jax.random.PRNGKey(0)).as_text()
print(hashlib.sha256(re.sub(r"loc\\(.*?\\)|#loc\\d*( = .*)?", "", text).encode()).hexdigest())
"""


def program_hash(root, env, settings):
    """sha256 of the train program that `root`'s code lowers for `env` with `settings` (KEY=VALUE strings)."""
    return run(root, "-c", LOWER_PROGRAM, env, *settings, what="lowering the training program").strip().splitlines()[-1]


def has_flag(text, flag):
    return re.search(rf"(?<![\w-]){flag}(?![\w-])", text) is not None


def accepted(checkouts):
    """{checkout: {evaluation: its flags}} for the evaluations every checkout's evaluate.py can run: sampled actions
    without --sampled where it predates that flag (it sampled by default), none with --mean where it lacks it."""
    helps = {who: run(root, "evaluate.py", "--help") for who, root in checkouts.items()}
    flags = {who: {name: [] if name == "sampled" and not has_flag(text, "--sampled") else list(given)
                   for name, given in EVALUATIONS.items()} for who, text in helps.items()}
    for name in EVALUATIONS:
        missing = [f"evaluate.py of {who} has no {a}" for who, text in helps.items()
                   for a in EVALUATE + flags[who][name] if a.startswith("--") and not has_flag(text, a)]
        if missing:
            print(f"skipping the {name}-action evaluation: {'; '.join(missing)}")
            for who in flags:
                del flags[who][name]
    return flags


def write_note(path, note):
    """Write the note with this machine's description, atomically (a temporary file beside it, then renamed)."""
    cpu = platform.processor()
    if os.path.exists("/proc/cpuinfo"):
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    installed = {d.name.lower().replace("_", "-"): d.version for d in metadata.distributions()}
    note["machine"] = dict(cpu=cpu, cpu_count=os.cpu_count(), python=platform.python_version(),
                           versions={p: installed.get(p) for p in ("jax", "jaxlib", "mujoco", "mujoco-mjx", "flax")})
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), suffix=".tmp")
    with os.fdopen(fd, "w") as f:
        f.write(json.dumps(note, indent=1) + "\n")
    os.replace(temporary, path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="COMMIT", help="reference commit (a temporary worktree)")
    parser.add_argument("--env", default="trex_stage1", help="the env trained (a stage whose code changed)")
    parser.add_argument("--root", default=ROOT, help="checkout under test, uncommitted changes included")
    parser.add_argument("--record", metavar="JSON",
                        help="where to write a note of what was run (default results/same_metrics_<env>.json)")
    parser.add_argument("--no-record", action="store_true", help="write no note")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for the checkout under test only, e.g. randomize.enabled=False")
    parser.add_argument("--both", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting for both checkouts, e.g. privileged_critic=True")
    parser.add_argument("--program", action="store_true",
                        help="compare the lowered training programs instead of training (equal: the same numbers)")
    args = parser.parse_args(argv)
    args.record = args.record or os.path.join(ROOT, "results", f"same_metrics_{args.env}.json")
    root = os.path.abspath(args.root)
    head = git(root, "rev-parse", "--short", "HEAD", error=f"--root {args.root} is not a git checkout")
    if not os.path.isfile(os.path.join(root, "ppo_mjx.py")):
        fail(f"--root {args.root} has no ppo_mjx.py")
    if not args.no_record and not os.path.isdir(os.path.dirname(os.path.abspath(args.record))):
        fail(f"--record {args.record}: no such folder")  # said now, not after minutes of training
    reference = git(root, "rev-parse", "--verify", "--quiet", "--short", f"{args.against}^{{commit}}",
                    error=f"--against {args.against}: no such commit in {root}")
    dirty = bool(git(root, "status", "--porcelain", "--", "*.py"))
    label = f"the working tree on {head}" if dirty else head
    with tempfile.TemporaryDirectory() as tmp:
        worktree = os.path.join(tmp, "reference")
        git(root, "worktree", "add", "--detach", worktree, reference)
        try:
            if args.program:
                print(f"lowering the training program with {label}, then with {reference}", flush=True)
                same = program_hash(root, args.env, args.both + args.set) == program_hash(worktree, args.env, args.both)
            else:
                evaluations = accepted({label: root, reference: worktree})
                print(f"training and evaluating with {label}, then with {reference} (minutes each)", flush=True)
                mine, updates = train_and_evaluate(root, evaluations[label], os.path.join(tmp, "mine"), args.env,
                                                   args.both + args.set)
                theirs, _ = train_and_evaluate(worktree, evaluations[reference], os.path.join(tmp, "theirs"),
                                               args.env, args.both)
        finally:
            subprocess.run(["git", "-C", root, "worktree", "remove", "--force", worktree], capture_output=True)
    settings = [f"--set {s}" for s in args.both + args.set]
    if args.program:
        verdict = (f"{label} lowers the same training program as {reference}: it trains the same numbers" if same else
                   f"{label} lowers another training program than {reference}: compare them by training (no --program)")
        print(verdict)
        if not args.no_record:
            write_note(args.record, dict(commit=head, uncommitted_py_changes=dirty, against=reference,
                                         commands=[f"lowered: {args.env} {' '.join(settings)}, 16 envs, 2 updates"],
                                         verdict=verdict, date=time.strftime("%Y-%m-%d %H:%M")))
            print(f"wrote {args.record}")
        sys.exit(0 if same else 1)
    keys = [k for k in mine if k in theirs]
    one_side = [f"{k} (only {label if k in mine else reference})" for k in
                list(mine) + list(theirs) if (k in mine) != (k in theirs)]
    found = [f"{k}: {mine[k]} vs {theirs[k]} in {reference}" for k in keys if mine[k] != theirs[k]]
    counts = {source: sum(k.startswith(source) for k in keys) for source in ("metrics.csv", "eval.json", "evaluate.py")}
    print(f"compared {counts['metrics.csv']} training values ({updates} updates x "
          f"{counts['metrics.csv'] // max(updates, 1)} metrics), {counts['eval.json']} eval.json values, "
          f"{counts['evaluate.py']} evaluate.py values ({' and '.join(evaluations[label]) or 'none'})"
          + (f"; not compared, on one side only: {', '.join(one_side)}" if one_side else ""))
    verdict = (f"{label} differs from {reference} in {len(found)} of {len(keys)} values" if found else
               f"{label} trains the same {updates} updates as {reference}: all {len(keys)} values equal bit for bit")
    print(verdict + (":\n" + "\n".join(found[:40]) if found else ""))
    if not args.no_record:
        commands = [" ".join(["python ppo_mjx.py", "--env", args.env, *ARGS, *settings, "--out RUN"])] + [
            " ".join(["python evaluate.py RUN", *EVALUATE, *flags]) for flags in evaluations[label].values()]
        write_note(args.record, dict(commit=head, uncommitted_py_changes=dirty, against=reference, commands=commands,
                                     one_side_only=one_side,
                                     xla_flags=XLA_CPU_FLAGS, compared=counts, verdict=verdict, differences=found,
                                     date=time.strftime("%Y-%m-%d %H:%M")))
        print(f"wrote {args.record}")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
