"""Widen a branch's stage-1 policy by new observation groups (tasks.OBSERVATION_GROUPS) that its config turns on:
inputs its first layers (actor's and critic's) read with zero weight, normalized as mean 0, variance 1, so that the
branch's stage 2 warm-starts from the same policy on the wider observation. Run on a branch made with the settings
--set, before resuming it:

    python analysis/branch_curriculum.py results/trex_curriculum_cpu_seed0 OUT --stage 2 --set observe_position=True ...
    python pad_inputs.py OUT observe_position [observe_heading]
    python ppo_mjx.py --resume OUT
"""
import json, os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
import runs, tasks
from configs import get_config, from_saved

GROUP = dict(observe_heading="heading_error", observe_position="position_error")
branch, settings = sys.argv[1], sys.argv[2:]
state = json.load(open(os.path.join(branch, "curriculum.json")))
path = os.path.join(branch, f"{state['species']}_stage1", runs.CHECKPOINT)
checkpoint = runs.read_checkpoint(path)
assert not any(checkpoint["config"].get(s, False) for s in settings), "already widened"
env_name, _, saved = from_saved(checkpoint["config"])
widened = saved | {s: True for s in settings}
config = get_config(env_name, widened)
layout = {g["name"]: g for g in tasks.observation_layout(config, tasks.load_model(config))}
policy = dict(checkpoint["policy"])
for group in sorted((layout[GROUP[s]] for s in settings), key=lambda g: g["start"]):  # earlier first: starts hold
    at, size = group["start"], group["stop"] - group["start"]
    for key, value in list(policy.items()):
        value = np.asarray(value)
        if key.endswith("['normalizer'].mean"):
            policy[key] = np.insert(value, [at] * size, 0.0)
        elif key.endswith("['normalizer'].var"):
            policy[key] = np.insert(value, [at] * size, 1.0)
        elif key.endswith("['Dense_0']['kernel']") or key.endswith("['Dense_3']['kernel']"):
            policy[key] = np.insert(value, [at] * size, 0.0, axis=0)
    print(f"{group['name']}: {size} inputs at {at}")
runs.write_checkpoint(path, checkpoint | dict(policy=policy, config=dict(checkpoint["config"], **{s: True for s in settings})))
print(f"{path} widened; resume with python ppo_mjx.py --resume {branch}")
