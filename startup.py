"""What the command-line entry points (ppo_mjx.py run as a script, evaluate.py, the benchmarks and analysis tools) do
first, before anything imports JAX or MuJoCo: settings that XLA and MuJoCo read once, when they load (values the user's
environment sets win), a quiet first import of MJX, and a garbage collector sized for tracing JAX programs."""

import contextlib
import ctypes.util
import gc
import io
import os


def headless_gl():
    """The OpenGL backend for headless videos: EGL on an NVIDIA GPU, OSMesa on a CPU (Debian `libosmesa6`), or
    "disable" when neither library is installed: metrics never need a renderer, and a video then fails with one line."""
    if os.path.exists("/dev/nvidiactl") and ctypes.util.find_library("EGL"):
        return "egl"
    return "osmesa" if ctypes.util.find_library("OSMesa") else "disable"


def before_jax():
    # XLA prints a C++ warning for every program read back from the compilation cache ("Assume version
    # compatibility"); errors still print.
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # MuJoCo picks its OpenGL backend when imported: headless unless the user chose one.
    os.environ.setdefault("MUJOCO_GL", headless_gl())
    # MJX prints "Failed to import warp" to stdout when the optional MuJoCo Warp backend is not installed, the usual
    # case (simulation.check_mjx_impl says what Warp needs when it is asked for); later imports of MJX are silent.
    with contextlib.redirect_stdout(io.StringIO()):
        import mujoco.mjx.warp  # noqa: F401
    # Tracing and lowering an MJX program allocates millions of short-lived Python objects; at Python's default
    # thresholds (700, 10, 10) the garbage collector takes a fifth of that time (benchmarks/compile_time.py). It
    # still runs here, a hundred times less often.
    gc.set_threshold(100_000, 100, 100)
