"""What the benchmarks share, light enough to import before JAX loads: the species they compare, in the order their
tables list them, and the folder a species' curriculum trains into (results/ holds the committed ones so named)."""

import os

SPECIES = ("trex", "velociraptor", "brachiosaurus")


def curriculum_folder(parent, species, backend="cpu"):
    """The seed-0 curriculum folder of `species` under `parent`, trained on `backend` ("cpu" or "gpu")."""
    return os.path.join(parent, f"{species}_curriculum_{backend}_seed0")
