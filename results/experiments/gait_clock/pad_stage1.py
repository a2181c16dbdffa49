"""Widen the stage-1 policy of a branched curriculum (analysis/branch_curriculum.py ... --stage 2 --set
gait_frequency=F ...) by the gait clock's two inputs, read with zero weight by the first layers and normalized as mean
0, variance 1: the same policy on the wider observation, so that `python ppo_mjx.py --resume BRANCH` warm-starts
stage 2 from it.

    python results/experiments/gait_clock/pad_stage1.py BRANCH
"""
import json
import os
import sys

sys.path.insert(0, os.getcwd())
import numpy as np  # noqa: E402

import runs  # noqa: E402

branch = sys.argv[1]
state = json.load(open(os.path.join(branch, "curriculum.json")))
path = os.path.join(branch, f"{state['species']}_stage1", runs.CHECKPOINT)
checkpoint = runs.read_checkpoint(path)
policy = {}
for key, value in checkpoint["policy"].items():
    value = np.asarray(value)
    if key.endswith("['normalizer'].mean"):
        value = np.append(value, [0.0, 0.0])
    elif key.endswith("['normalizer'].var"):
        value = np.append(value, [1.0, 1.0])
    elif key.endswith("['Dense_0']['kernel']") or key.endswith("['Dense_3']['kernel']"):
        value = np.concatenate([value, np.zeros((2, value.shape[1]), value.dtype)])
    policy[key] = value.astype(np.asarray(checkpoint["policy"][key]).dtype)
config = dict(checkpoint["config"], gait_frequency=state["overrides"]["gait_frequency"])
runs.write_checkpoint(path, dict(checkpoint, policy=policy, config=config))
print(f"{path}: observation widened to {policy[next(k for k in policy if k.endswith('.mean'))].shape[0]}")
