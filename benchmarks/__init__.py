"""What the benchmarks share, light enough to import before JAX loads: the species they compare, in the order their
tables list them, the folder a species' curriculum trains into (results/ holds the committed ones so named), and
what a training's progress line says."""

import os
import re

SPECIES = ("trex", "velociraptor", "brachiosaurus")


def curriculum_folder(parent, species, backend="cpu"):
    """The seed-0 curriculum folder of `species` under `parent`, trained on `backend` ("cpu" or "gpu")."""
    return os.path.join(parent, f"{species}_curriculum_{backend}_seed0")


PROGRESS_LINE = re.compile(r"^update (\d+)/\d+\s+steps [\d,]+\s+([\d,]+) steps/s")  # as training.py prints it


def progress_line(line):
    """(updates done, env steps/s) of a progress line; None for any other line."""
    match = PROGRESS_LINE.match(line)
    return None if match is None else (int(match.group(1)), float(match.group(2).replace(",", "")))
