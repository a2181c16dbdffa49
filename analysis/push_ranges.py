"""Which push range should a species' stage 1 train under? Candidate ranges judged against doing nothing.

A stage-1 gate means something only if doing nothing fails it, so each candidate push range (speeds in m/s, waits
between pushes in control steps) is judged by the do-nothing policies on the species' stage-1 gate, with its default
randomization: zero action (hold the home pose) and noise alone (zero-mean Gaussian actions at the initial
exploration std). A range is kept only if both stand in at most 0.3 of the gate's episodes
(benchmarks/robustness.py's DO_NOTHING_MAX); of the kept ones, train with the gentlest.

    python analysis/push_ranges.py --candidate trex     # the species' configured range: does it still hold?
    python analysis/push_ranges.py --candidate brachiosaurus:0.9-1.3:25-40 --candidate brachiosaurus:1.0-1.5:40-60
    python analysis/push_ranges.py --candidate velociraptor:0.25-0.6:40-60 --set action_scale=0.75

Writes results/push_ranges_candidates<--set pairs>_<backend>.json (e.g. ..._action_scale-0.75_cpu.json): one file
gathers every range judged under its overrides, each row with the command that judged it; a later command replaces
the rows it judges again. Any species with a `<species>_stage1` config can be judged, a new one too (README, "Adding
a species"). Episodes and seed are the gate evaluation's size on the CPU (32) and robustness.py's seed, apart from
training's and the gates'; each candidate compiles two evaluations (a few minutes on a 2-core CPU).
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import robustness  # noqa: E402  first: it sets up logging and OpenGL before JAX loads

import jax  # noqa: E402

import runs  # noqa: E402
import training  # noqa: E402
from configs import ConfigError, get_config, parse_overrides  # noqa: E402

EPISODES, SEED = 32, 2_000_000


def do_nothing(name, overrides):
    """Success rates of zero action and of noise alone in env `name` with `overrides`."""
    config = get_config(name, overrides)
    return {who: robustness.summarize(name, config, who, EPISODES, SEED)["success_rate"] for who in ("zero", "noise")}


def candidate(text):
    """SPECIES:LOW-HIGH:LOW-HIGH, push speeds (m/s) then waits (control steps), as (species, speeds, interval); or
    SPECIES alone, for the range its stage-1 config sets (speeds and interval None)."""
    if ":" not in text:
        return text, None, None
    try:
        species, speeds, interval = text.split(":")
        speeds, interval = tuple(map(float, speeds.split("-"))), tuple(map(int, interval.split("-")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not SPECIES or SPECIES:LOW-HIGH:LOW-HIGH, e.g. "
                                         "trex:0.2-0.4:40-60")
    if len(speeds) != 2 or len(interval) != 2:
        raise argparse.ArgumentTypeError(f"{text!r}: two speeds and two intervals, e.g. trex:0.2-0.4:40-60")
    return species, speeds, interval


def configured(candidates, overrides):
    """The candidates with a species' configured range filled in where none was given; a ConfigError for a species
    without a stage-1 config or overrides it does not take."""
    filled = []
    for species, speeds, interval in candidates:
        config = get_config(f"{species}_stage1", overrides)
        filled.append((species, tuple(speeds or config["push_speed"]), tuple(interval or config["push_interval"])))
    return filled


def judged(candidates, overrides=None):
    """A row per (species, push speeds, push interval): zero action, noise alone, and whether the range is kept."""
    ranges = []
    for species, speeds, interval in candidates:
        scores = do_nothing(f"{species}_stage1", dict(overrides or {}, push_speed=speeds, push_interval=interval))
        ranges.append(dict(species=species, push_speed=speeds, push_interval=interval, **scores,
                           kept=max(scores.values()) <= robustness.DO_NOTHING_MAX))
        print(ranges[-1], flush=True)
    return ranges


def with_earlier_rows(path, rows):
    """The rows of the record at `path` that `rows` do not judge again, then `rows`: a candidates file gathers every
    candidate judged under its overrides, each row with the command that judged it."""
    try:
        with open(path) as f:
            earlier = json.load(f)
    except FileNotFoundError:
        return rows
    again = [candidate_of(row) for row in rows]
    return [dict(row, command=row.get("command", earlier["command"])) for row in earlier["ranges"]
            if candidate_of(row) not in again] + rows


def candidate_of(row):
    """(species, push speeds, push interval) of a row, as lists whether read from JSON or just judged."""
    return row["species"], list(row["push_speed"]), list(row["push_interval"])


def fail(message):
    """Bad input: one line and exit code 2, before anything compiles."""
    print(f"error: {message}", file=sys.stderr)
    sys.exit(2)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--candidate", type=candidate, action="append", required=True,
                        help="a range to judge, SPECIES:LOW-HIGH:LOW-HIGH (speeds m/s, waits in control steps), or "
                             "SPECIES for its configured range; repeatable")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="config override for every candidate, as in ppo_mjx")
    args = parser.parse_args(argv)
    try:
        overrides = parse_overrides(args.set)
        candidates = configured(args.candidate, overrides)
    except ConfigError as error:
        fail(str(error))
    training.enable_compilation_cache()
    start = time.monotonic()
    arguments = [f"--candidate {s}:{v[0]:g}-{v[1]:g}:{i[0]}-{i[1]}" for s, v, i in candidates]
    command = " ".join(["python analysis/push_ranges.py", *arguments, *(f"--set {o}" for o in args.set)])
    rows = [dict(row, command=command) for row in judged(candidates, overrides)]
    path = os.path.join(ROOT, "results", f"push_ranges_candidates{runs.overrides_suffix(args.set)}_"
                                         f"{jax.default_backend()}.json")
    record = dict(command=command, date=time.strftime("%Y-%m-%d"), machine=runs.machine(), episodes=EPISODES,
                  seed=SEED, wall_s=time.monotonic() - start, ranges=with_earlier_rows(path, rows))
    runs.atomic_write(path, json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
