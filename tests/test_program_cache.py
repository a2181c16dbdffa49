import importlib
import os
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import program_cache

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def cache_folder(tmp_path, monkeypatch):
    monkeypatch.setattr(program_cache, "folder", str(tmp_path / "programs"))
    return tmp_path / "programs"


def counted(traces):
    """A function of a tree with a typed key in and out; `traces` counts how often it is traced."""
    def fn(tree, scale):
        traces.append(1)
        key, sub = jax.random.split(tree["key"])
        return {"key": key, "noise": jax.random.normal(sub, tree["x"].shape) * scale + tree["x"]}, tree["x"].sum()
    return fn


def arguments(size=3):
    return {"key": jax.random.key(7), "x": jnp.arange(size, dtype=jnp.float32)}, jnp.float32(2.0)


def equal(a, b):
    raw = lambda x: jax.random.key_data(x) if jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key) else x
    return jax.tree.structure(a) == jax.tree.structure(b) and all(
        np.array_equal(raw(x), raw(y)) for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b)))


def test_a_stored_program_is_read_back_untraced_and_computes_the_same(cache_folder):
    traces = []
    args = arguments()
    expected = jax.jit(counted([]))(*args)
    first = program_cache.compile(counted(traces), args, ("sum",))(*args)
    assert len(traces) == 1 and len(os.listdir(cache_folder)) == 1
    again = program_cache.compile(counted(traces), args, ("sum",))
    assert len(traces) == 1  # read back, not traced
    assert equal(first, expected) and equal(again(*args), expected)
    assert program_cache.shapes(counted(traces), args, ("sum",))[1].shape == () and len(traces) == 1


def test_another_key_shape_or_source_traces_again(cache_folder, tmp_path, monkeypatch):
    traces = []
    program_cache.compile(counted(traces), arguments(), ("sum",))
    program_cache.compile(counted(traces), arguments(), ("other",))
    program_cache.compile(counted(traces), arguments(4), ("sum",))
    assert len(traces) == 3
    module = tmp_path / "user_module.py"
    module.write_text("SCALE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("user_module")  # code outside the installed packages is part of the key
    program_cache.compile(counted(traces), arguments(), ("sum",))
    module.write_text("SCALE = 2\n")
    program_cache.compile(counted(traces), arguments(), ("sum",))
    assert len(traces) == 5
    module.unlink()  # code no file holds any more: nothing stored can be trusted for it
    program_cache.compile(counted(traces), arguments(), ("sum",))
    assert len(traces) == 6
    monkeypatch.delitem(sys.modules, "user_module")


def test_a_damaged_stored_program_is_traced_again_and_replaced(cache_folder):
    traces = []
    args = arguments()
    program_cache.compile(counted(traces), args, ("sum",))
    (path,) = cache_folder.iterdir()
    path.write_bytes(path.read_bytes()[:100])
    assert equal(program_cache.compile(counted(traces), args, ("sum",))(*args), jax.jit(counted([]))(*args))
    assert len(traces) == 2 and program_cache.read(str(path)) is not None


def test_off_until_enabled_and_host_callbacks_are_traced_every_time(cache_folder, monkeypatch):
    traces = []
    with_callback = lambda x: (traces.append(1), jax.pure_callback(np.sin, x, x))[1]
    for _ in range(2):
        program_cache.compile(with_callback, (jnp.ones(3),), ("callback",))
    monkeypatch.setattr(program_cache, "folder", None)
    program_cache.compile(with_callback, (jnp.ones(3),), ("callback",))
    assert len(traces) == 3 and not cache_folder.exists()


def test_a_program_read_back_in_a_new_process_runs_its_lapack_calls(tmp_path):
    """A QR (as in an orthogonal initializer) read back in a fresh process: JAX readies LAPACK only when it lowers a
    call to it, so without program_cache readying it the process dies on a null pointer."""
    code = ("import sys, jax, jax.numpy as jnp, program_cache; program_cache.enable(sys.argv[1]); "
            "qr = program_cache.compile(lambda a: jnp.linalg.qr(a)[1], (jnp.eye(3) * 2,), ('qr',)); "
            "print(float(jnp.abs(qr(jnp.eye(3) * 2)).sum()))")
    for _ in range(2):  # the second process reads the program back
        result = subprocess.run([sys.executable, "-c", code, str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0 and result.stdout.strip() == "6.0", result.stderr[-2000:]
    assert len(os.listdir(tmp_path)) == 1
