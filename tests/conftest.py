import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import evaluate  # noqa: E402,F401  first: it picks a headless OpenGL backend before MuJoCo is imported
import jax  # noqa: E402
import pytest  # noqa: E402

import envs  # noqa: E402
import ppo_mjx  # noqa: E402

# Compiled MJX programs are reused across test runs.
ppo_mjx.enable_compilation_cache()


@pytest.fixture(scope="session")
def trex():
    """The T-Rex stage-1 env with jitted batched reset/step, compiled once for every test that needs them."""
    env = envs.make_env("trex_stage1")
    return dict(env=env, vreset=jax.jit(jax.vmap(env.reset)), vstep=jax.jit(jax.vmap(env.step)))


@pytest.fixture(scope="session")
def cartpole_straight(tmp_path_factory):
    """A short cartpole run folder (SHORT_CONFIG, seed 0) trained straight through: the reference that resumed,
    vmapped and sharded runs of the same config are compared with."""
    from cartpole import SHORT_CONFIG, make_cartpole_env

    out = tmp_path_factory.mktemp("straight")
    ppo_mjx.run(make_cartpole_env(SHORT_CONFIG), SHORT_CONFIG, 0, str(out))
    return out
