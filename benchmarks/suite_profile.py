"""Where the test suite's time goes: a pytest plugin that writes, per test, its wall time and the seconds JAX spent
tracing, lowering and compiling (XLA) in it, as reported by jax.monitoring, then a table per test file.

    python -m pytest -q -p benchmarks.suite_profile                      # from the repository root
    SUITE_PROFILE=profile.tsv python -m pytest -q -p benchmarks.suite_profile

Each pytest-xdist process appends its tests' rows to the file (default results/suite_profile.tsv, emptied first by
the main process); `python benchmarks/suite_profile.py [FILE]` prints the table per file. Traces nest (a jitted
function traced inside another program counts in both), so tracing seconds can exceed a test's wall time. Beside it,
FILE with `_programs` before its extension lists every trace and XLA compile of a second or more (seconds, which,
program, test), and `python benchmarks/suite_profile.py FILE --programs` sums them per program: which programs the
suite traces and compiles, and how often.
"""

import collections
import os
import sys
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT = os.path.join(ROOT, "results", "suite_profile.tsv")
EVENTS = {"trace_s": "jaxpr_trace_duration", "lower_s": "jaxpr_to_mlir_module_duration",
          "compile_s": "backend_compile_duration"}
COLUMNS = ["wall_s", *EVENTS, "test"]

PROGRAM_COLUMNS = ["seconds", "which", "program", "test"]
LONG_S = 1.0
LISTED = {EVENTS["trace_s"]: "trace_s", EVENTS["compile_s"]: "compile_s"}  # the events listed per program

seconds = collections.Counter()
long_events = []  # (seconds, trace_s or compile_s, program) of this test's long traces and compiles


def path():
    return os.environ.get("SUITE_PROFILE", DEFAULT)


def programs_path(profile):
    """Where the long traces and compiles of the profile `profile` are listed."""
    stem, extension = os.path.splitext(profile)
    return f"{stem}_programs{extension}"


def record(event, duration, fun_name="?", **_):
    name = event.rsplit("/", 1)[-1]
    seconds[name] += duration
    which = LISTED.get(name)
    if which and duration >= LONG_S:
        long_events.append((duration, which, fun_name))


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the main process starts the files; workers append to them
        for name, columns in [(path(), COLUMNS), (programs_path(path()), PROGRAM_COLUMNS)]:
            with open(name, "w") as f:
                f.write("\t".join(columns) + "\n")
    import jax.monitoring

    jax.monitoring.register_event_duration_secs_listener(record)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    seconds.clear()
    long_events.clear()
    start = time.monotonic()
    yield
    with open(path(), "a") as f:
        f.write("\t".join([f"{time.monotonic() - start:.1f}", *(f"{seconds[e]:.1f}" for e in EVENTS.values()),
                           item.nodeid]) + "\n")
    with open(programs_path(path()), "a") as f:
        f.writelines(f"{duration:.1f}\t{which}\t{program}\t{item.nodeid}\n" for duration, which, program in long_events)


def by_file(rows):
    """{test file: summed seconds per column}, slowest file first."""
    files = collections.defaultdict(collections.Counter)
    for row in rows:
        name = row["test"].split("::")[0]
        files[name].update({k: float(row[k]) for k in COLUMNS[:-1]})
    return dict(sorted(files.items(), key=lambda item: -item[1]["wall_s"]))


def read(name):
    with open(name) as f:
        header, *lines = [line.rstrip("\n").split("\t") for line in f]
    return [dict(zip(header, line)) for line in lines]


def print_programs(rows):
    """Long traces and compiles summed per program, most seconds first: how many, and the test files that made them."""
    total, count, files = collections.Counter(), collections.Counter(), collections.defaultdict(set)
    for row in rows:
        key = (row["program"], row["which"])
        total[key] += float(row["seconds"])
        count[key] += 1
        files[key].add(os.path.basename(row["test"].split("::")[0]))
    print("| program | which | times | seconds | test files |\n|---|---|---:|---:|---|")
    for (program, which), seconds_ in total.most_common():
        names = ", ".join(sorted(files[program, which]))
        print(f"| {program} | {which} | {count[program, which]} | {seconds_:.0f} | {names} |")


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--programs"]
    profile = arguments[0] if arguments else DEFAULT
    if "--programs" in sys.argv:
        print_programs(read(programs_path(profile)))
        sys.exit()
    rows = read(profile)
    print("| file | " + " | ".join(COLUMNS[:-1]) + " |\n|---|" + "---:|" * (len(COLUMNS) - 1))
    for name, sums in {**by_file(rows), "all": sum(by_file(rows).values(), collections.Counter())}.items():
        print(f"| {name} | " + " | ".join(f"{sums[k]:.0f}" for k in COLUMNS[:-1]) + " |")
