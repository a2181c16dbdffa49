"""The host's files with the standard library alone, so that play.py, which runs without JAX, shares them with the
run folders (runs.py): files written whole or not at all, and the CPU's name for the record of where a result ran."""

import importlib.metadata
import json
import os
import platform
import tempfile
import time


def atomic_write(path, data):
    """Write bytes or text to `path` through a synced temporary file and a rename: never a half-written file."""
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates owner-only files
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def host(packages):
    """Where a result was produced: the CPU, Python and the versions of `packages`."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(line.split(":", 1)[1].strip() for line in f if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return dict(cpu=cpu, cpu_count=os.cpu_count(), python=platform.python_version(),
                versions={p: importlib.metadata.version(p) for p in packages})


def write_record(path, record, command, packages):
    """Write `record` as JSON to `path`, whole or not at all, with the command that made it, the date and the host
    (with the versions of `packages`)."""
    made = dict(command=command, date=time.strftime("%Y-%m-%d"), machine=host(packages))
    atomic_write(path, json.dumps(record | made, indent=1) + "\n")
