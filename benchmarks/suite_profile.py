"""Where the test suite's time goes: a pytest plugin that writes, per test, its wall time and the seconds JAX spent
tracing, lowering and compiling (XLA) in it, as reported by jax.monitoring, then a table per test file.

    python -m pytest -q -p benchmarks.suite_profile                      # from the repository root
    SUITE_PROFILE=profile.tsv python -m pytest -q -p benchmarks.suite_profile

Each pytest-xdist process appends its tests' rows to the file (default results/suite_profile.tsv, emptied first by
the main process); `python benchmarks/suite_profile.py [FILE]` prints the table per file. Traces nest (a jitted
function traced inside another program counts in both), so tracing seconds can exceed a test's wall time.
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

seconds = collections.Counter()


def path():
    return os.environ.get("SUITE_PROFILE", DEFAULT)


def record(event, duration, **_):
    seconds[event.rsplit("/", 1)[-1]] += duration


def pytest_configure(config):
    if not hasattr(config, "workerinput"):  # the main process starts the file; workers append to it
        with open(path(), "w") as f:
            f.write("\t".join(COLUMNS) + "\n")
    import jax.monitoring

    jax.monitoring.register_event_duration_secs_listener(record)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    seconds.clear()
    start = time.monotonic()
    yield
    with open(path(), "a") as f:
        f.write("\t".join([f"{time.monotonic() - start:.1f}", *(f"{seconds[e]:.1f}" for e in EVENTS.values()),
                           item.nodeid]) + "\n")


def by_file(rows):
    """{test file: summed seconds per column}, slowest file first."""
    files = collections.defaultdict(collections.Counter)
    for row in rows:
        name = row["test"].split("::")[0]
        files[name].update({k: float(row[k]) for k in COLUMNS[:-1]})
    return dict(sorted(files.items(), key=lambda item: -item[1]["wall_s"]))


if __name__ == "__main__":
    with open(sys.argv[1] if len(sys.argv) > 1 else DEFAULT) as f:
        header, *lines = [line.rstrip("\n").split("\t") for line in f]
    rows = [dict(zip(header, line)) for line in lines]
    print("| file | " + " | ".join(COLUMNS[:-1]) + " |\n|---|" + "---:|" * (len(COLUMNS) - 1))
    for name, sums in {**by_file(rows), "all": sum(by_file(rows).values(), collections.Counter())}.items():
        print(f"| {name} | " + " | ".join(f"{sums[k]:.0f}" for k in COLUMNS[:-1]) + " |")
