import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

# Test files run in two processes (pytest.ini): on a GPU, neither may take most of its memory up front.
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")

import startup  # noqa: E402

startup.before_jax()  # as the entry points do: a headless OpenGL backend before MuJoCo is imported

import pytest  # noqa: E402

import training  # noqa: E402

# Compiled MJX programs are reused across test runs.
training.enable_compilation_cache()


@pytest.fixture(scope="session")
def cartpole_straight(tmp_path_factory):
    """A short cartpole run folder (SHORT_CONFIG, seed 0) trained straight through: the reference that resumed,
    vmapped and sharded runs of the same config are compared with."""
    from cartpole import SHORT_CONFIG, make_cartpole_env

    out = tmp_path_factory.mktemp("straight")
    training.run(make_cartpole_env(SHORT_CONFIG), SHORT_CONFIG, 0, str(out))
    return out
