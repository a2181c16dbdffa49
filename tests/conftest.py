import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

# Test files run in two processes (pytest.ini): on a GPU, neither may take most of its memory up front.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
# Most of the suite's time is XLA compiling programs for the CPU, and the tests run them only briefly: the suite
# compiles with XLA's older loop emitters, without LLVM's optimizations (optimization level 0) and without the three
# HLO passes that optimize while loops, which cost most where an env step sits inside a scan (benchmarks/
# compile_time.py has the figures). Results differ in the last bits only; users' runs keep XLA's defaults.
# Subprocesses the tests start inherit it.
from benchmarks.compile_time import SUITE_XLA_FLAGS  # noqa: E402  (only constants: nothing of JAX loads)

XLA_DEFAULTS = dict(xla_cpu_use_fusion_emitters=True, xla_backend_optimization_level=2,  # for a test that runs long
                    xla_disable_hlo_passes="")
os.environ["XLA_FLAGS"] = f"{os.environ.get('XLA_FLAGS', '')} {SUITE_XLA_FLAGS}".strip()

import startup  # noqa: E402

startup.before_jax()  # as the entry points do: a headless OpenGL backend before MuJoCo is imported

import pytest  # noqa: E402

import tinysaur  # noqa: E402
import training  # noqa: E402

# Compiled MJX programs are reused across test runs.
training.enable_compilation_cache()

# The two processes take test files in this order, slowest first, so that neither is left alone with a long file at
# the end; files not named follow in their usual order.
SLOWEST_FILES = ["test_export.py", "test_cli.py", "test_sweeps.py", "test_new_species.py", "test_ppo.py",
                 "test_curriculum.py", "test_species.py", "test_randomization.py", "test_stages.py", "test_commands.py",
                 "test_envs.py", "test_runs.py"]  # as results/suite_profile.tsv measured them


def pytest_collection_modifyitems(items):
    rank = {name: i for i, name in enumerate(SLOWEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: a file's tests keep their order


@pytest.fixture(scope="session")
def cartpole_straight(tmp_path_factory):
    """A short cartpole run folder (SHORT_CONFIG, seed 0) trained straight through: the reference that resumed,
    vmapped and sharded runs of the same config are compared with."""
    from cartpole import SHORT_CONFIG, make_cartpole_env

    out = tmp_path_factory.mktemp("straight")
    training.run(make_cartpole_env(SHORT_CONFIG), SHORT_CONFIG, 0, str(out))
    return out


@pytest.fixture(scope="module")
def made_up_species():
    """The made-up species' stage configs (tests/tinysaur.py), registered under tinysaur_stage1-3 for the rest of the
    module that asks for them."""
    with tinysaur.registered() as stages:
        yield stages
