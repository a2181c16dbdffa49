"""Traced programs kept on disk, so that a process starting a program that an earlier one traced skips tracing and
lowering it and goes straight to XLA's compilation cache: an MJX training program takes 20-40 s to trace and lower on
a CPU, and 1-3 s to read back. Programs are stored with `jax.export` (StableHLO), which compiles to the same
numbers as the traced function.

A stored program is used again only when everything that shaped its trace is the same: the code this process runs
from outside the installed packages (every such module's source), the installed versions of JAX, MuJoCo and the
rest, JAX's settings, the devices, the arguments' structure, shapes and types, and the caller's `key` (the config,
the model, what the program is). Anything else is traced as usual, then stored. A program that cannot be exported
(host callbacks, several devices) is traced every time. Off until `enable` is called (the entry points do).
"""

import functools
import hashlib
import importlib.metadata
import os
import pickle
import site
import sys
import sysconfig

import jax

import files

PACKAGES = ("jax", "jaxlib", "mujoco", "mujoco-mjx", "flax", "optax", "distrax", "numpy")
folder = None  # where programs are kept; None: off


def enable(path):
    """Keep programs in the folder `path` from now on."""
    global folder
    folder = path


def installed_dirs():
    paths = sysconfig.get_paths()
    dirs = {paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib")} | set(site.getsitepackages())
    return tuple(os.path.realpath(d) + os.sep for d in dirs | {site.getusersitepackages()})


source_digests = {}  # (path, mtime, size) -> digest of the file's bytes


def code_digest():
    """A digest of the source of every loaded module that is not part of Python or an installed package."""
    installed, digest = installed_dirs(), hashlib.sha256()
    for name, module in sorted(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if not path or not path.endswith(".py") or os.path.realpath(path).startswith(installed):
            continue
        try:
            stat = os.stat(path)
            stamp = (path, stat.st_mtime_ns, stat.st_size)
            if stamp not in source_digests:
                with open(path, "rb") as f:
                    source_digests[stamp] = hashlib.sha256(f.read()).hexdigest()
            source = source_digests[stamp]
        except OSError:  # moved or deleted since it was imported: this process runs code no file holds now
            source = f"unreadable {os.getpid()}"
        digest.update(f"{name} {source}\n".encode())
    return digest.hexdigest()


def program_path(leaves, in_tree, key):
    versions = [importlib.metadata.version(p) for p in PACKAGES]
    devices = [(d.platform, d.device_kind) for d in jax.devices()]
    shapes = [(tuple(x.shape), str(x.dtype)) for x in leaves]
    text = repr((key, code_digest(), versions, sys.version, sorted(jax.config.values.items()), devices,
                 jax.process_count(), hashlib.sha256(pickle.dumps(in_tree)).hexdigest(), shapes))
    return os.path.join(folder, hashlib.sha256(text.encode()).hexdigest() + ".pkl")


def read(path):
    """The stored (exported program, output tree), or None when there is none or it cannot be read."""
    try:
        with open(path, "rb") as f:
            stored = pickle.load(f)
        return jax.export.deserialize(bytearray(stored["program"])), stored["out_tree"]
    except Exception:  # noqa: BLE001  (missing, half-written by a killed process, or from other versions: trace)
        return None


def write(path, exported, out_tree):
    files.atomic_write(path, pickle.dumps(dict(program=bytes(exported.serialize()), out_tree=out_tree)))


def export(fn, args, key):
    """(exported program of `fn` over the flattened `args`, the output tree): read back, or traced and stored. None
    where it cannot be kept: caching off, several devices, or a program `jax.export` refuses."""
    if folder is None or jax.device_count() > 1:
        return None
    leaves, in_tree = jax.tree.flatten(args)
    path = program_path(leaves, in_tree, key)
    stored = read(path)
    if stored:
        return stored
    out_tree = []

    def flat(*xs):
        out_leaves, tree = jax.tree.flatten(fn(*jax.tree.unflatten(in_tree, xs)))
        out_tree.append(tree)
        return out_leaves

    try:  # traced for bare shapes: the arguments' shardings would be written into the program
        exported = jax.export.export(jax.jit(flat))(*[jax.ShapeDtypeStruct(x.shape, x.dtype) for x in leaves])
    except Exception:  # noqa: BLE001  (e.g. host callbacks cannot be serialized: traced every time instead)
        return None
    write(path, exported, out_tree[0])
    return exported, out_tree[0]


@functools.cache
def initialize_linear_algebra():
    """JAX readies its CPU LAPACK kernels (QR, Cholesky, eigendecompositions...) only when it lowers a call to one
    (jaxlib.lapack.prepare_lapack_call); a program read back from disk calls them unreadied and crashes on a null
    pointer (seen with jax 0.9.2 on an orthogonal initializer's QR). Lowering one such call readies them all."""
    jax.jit(jax.numpy.linalg.qr).lower(jax.ShapeDtypeStruct((2, 2), "float32"))


def compile(fn, args, key, in_shardings=None, out_shardings=None):
    """`fn` compiled for arguments like `args` (arrays or shapes): a callable taking and returning the same trees as
    `fn`. Its traced program is read back when stored under the same `key` and code (see above); the shardings apply
    where it is traced as usual (several devices)."""
    stored = export(fn, args, key)
    if stored is None:
        kwargs = {k: v for k, v in dict(in_shardings=in_shardings, out_shardings=out_shardings).items() if v}
        return jax.jit(fn, **kwargs).lower(*args).compile()
    exported, out_tree = stored
    initialize_linear_algebra()
    compiled = jax.jit(exported.call).lower(*jax.tree.leaves(args)).compile()
    return lambda *xs: jax.tree.unflatten(out_tree, compiled(*jax.tree.leaves(xs)))


def shapes(fn, args, key):
    """`jax.eval_shape(fn, *args)`, from the stored program when there is one (storing it otherwise)."""
    stored = export(fn, args, key)
    if stored is None:
        return jax.eval_shape(fn, *args)
    exported, out_tree = stored
    return jax.tree.unflatten(out_tree, [jax.ShapeDtypeStruct(a.shape, a.dtype) for a in exported.out_avals])
