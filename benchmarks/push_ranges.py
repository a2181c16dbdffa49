"""How the stage-1 push ranges were chosen (issue 19): zero action and noise alone on each species' stage-1 gate under
candidate push ranges, with the default randomization; and, on the T-Rex without pushes, zero action under each
randomized factor alone.

    python benchmarks/push_ranges.py          # writes results/push_ranges_cpu.json
    python benchmarks/push_ranges.py --candidate brachiosaurus:0.9-1.3:25-40   # these ranges only; repeatable;
                                              # writes results/push_ranges_candidates_cpu.json
    python benchmarks/push_ranges.py --candidate velociraptor:0.25-0.6:40-60 --set action_scale=0.75
                                              # the same under config overrides, as in ppo_mjx; writes
                                              # results/push_ranges_candidates_action_scale-0.75_cpu.json
A candidates file gathers every range judged under its overrides: a later command replaces the rows it judges again.

A range is kept only if both do-nothing policies stand in at most 0.3 of the gate's episodes (robustness.py's
DO_NOTHING_MAX): a gate must mean something. Episodes and seed are the gate evaluation's size on the CPU (32) and
robustness.py's seed, apart from training's and the gates'.
"""

import argparse
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import robustness  # noqa: E402  first: it sets up logging and OpenGL before JAX loads

import randomization  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import ConfigError, get_config, parse_overrides  # noqa: E402

EPISODES, SEED, INTERVAL = 32, 2_000_000, (40, 60)
CANDIDATES = dict(trex=[(0.2, 0.4), (0.2, 0.5), (0.3, 0.6)], velociraptor=[(0.25, 0.5), (0.25, 0.6), (0.35, 0.7)],
                  brachiosaurus=[(0.75, 1.5), (1.0, 1.5), (1.2, 1.6), (1.0, 1.8)])


def do_nothing(name, overrides):
    """Success rates of zero action and of noise alone in env `name` with `overrides`."""
    config = get_config(name, overrides)
    return {who: robustness.summarize(name, config, who, EPISODES, SEED)["success_rate"] for who in ("zero", "noise")}


def candidate(text):
    """SPECIES:LOW-HIGH:LOW-HIGH, push speeds (m/s) then intervals (control steps), as (species, speeds, interval)."""
    try:
        species, speeds, interval = text.split(":")
        speeds, interval = tuple(map(float, speeds.split("-"))), tuple(map(int, interval.split("-")))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not SPECIES:LOW-HIGH:LOW-HIGH, e.g. trex:0.2-0.4:40-60")
    if species not in CANDIDATES or len(speeds) != 2 or len(interval) != 2:
        raise argparse.ArgumentTypeError(f"{text!r}: species one of {', '.join(CANDIDATES)}, two speeds, two intervals")
    return species, speeds, interval


def judged(candidates, overrides=None):
    """A row per (species, push speeds, push interval): zero action, noise alone, and whether the range is kept."""
    ranges = []
    for species, speeds, interval in candidates:
        scores = do_nothing(f"{species}_stage1", dict(overrides or {}, push_speed=speeds, push_interval=interval))
        ranges.append(dict(species=species, push_speed=speeds, push_interval=interval, **scores,
                           kept=max(scores.values()) <= robustness.DO_NOTHING_MAX))
        print(ranges[-1], flush=True)
    return ranges


def save(filename, command, start, **figures):
    """Write results/<filename>: the `command`, where and when it ran, and `figures`."""
    record = dict(command=command, date=time.strftime("%Y-%m-%d"), machine=runs.machine(), episodes=EPISODES,
                  seed=SEED, wall_s=time.monotonic() - start, **figures)
    runs.atomic_write(result_path(filename), json.dumps(record, indent=1) + "\n")
    print(f"wrote {result_path(filename)}")


def result_path(filename):
    return os.path.join(ROOT, "results", filename)


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
    parser.add_argument("--candidate", type=candidate, action="append",
                        help="judge only these ranges, SPECIES:LOW-HIGH:LOW-HIGH (speeds m/s, interval steps)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="config override for every candidate, as in ppo_mjx")
    args = parser.parse_args(argv)
    if args.set and not args.candidate:
        fail("--set needs --candidate: the full table is the defaults'")
    training.enable_compilation_cache()
    start = time.monotonic()
    if args.candidate:
        try:
            overrides = parse_overrides(args.set)
            for species, _, _ in args.candidate:
                get_config(f"{species}_stage1", overrides)
        except ConfigError as error:
            fail(str(error))
        arguments = [f"--candidate {s}:{v[0]:g}-{v[1]:g}:{i[0]}-{i[1]}" for s, v, i in args.candidate]
        command = " ".join(["python benchmarks/push_ranges.py", *arguments, *(f"--set {o}" for o in args.set)])
        filename = f"push_ranges_candidates{runs.overrides_suffix(args.set)}_cpu.json"
        rows = [dict(row, command=command) for row in judged(args.candidate, overrides)]
        save(filename, command, start, ranges=with_earlier_rows(result_path(filename), rows))
        return
    ranges = judged([(species, speeds, INTERVAL) for species, all_speeds in CANDIDATES.items()
                     for speeds in all_speeds])
    off = {f"randomize.{name}": None for name in randomization.RANGES}
    factors = []
    for name in randomization.RANGES:
        default = get_config("trex_stage1")["randomize"][name]
        success = robustness.summarize("trex_stage1", get_config("trex_stage1", off | {
            f"randomize.{name}": default, "push_interval": 0}), "zero", EPISODES, SEED)["success_rate"]
        factors.append(dict(factor=name, range=default, zero_action_no_pushes=success))
        print(factors[-1], flush=True)
    save("push_ranges_cpu.json", "python benchmarks/push_ranges.py", start, ranges=ranges,
         trex_zero_action_by_factor=factors)


if __name__ == "__main__":
    main()
