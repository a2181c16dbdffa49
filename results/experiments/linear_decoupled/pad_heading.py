"""Widen a branch's stage-1 policy by the heading-error input (tasks.heading_error): one input its first layers read
with zero weight, normalized as mean 0, variance 1, so the branch's stage 2 warm-starts from the same policy on the
new observation. Run on a branch made with --set observe_heading=True, before resuming it:

    python analysis/branch_curriculum.py results/velociraptor_curriculum_cpu_seed0 OUT --stage 2 --set observe_heading=True
    python results/experiments/heading/pad_heading.py OUT
    python ppo_mjx.py --resume OUT
"""
import json, os, sys
sys.path.insert(0, os.getcwd())
import numpy as np
import runs, tasks
from configs import get_config, from_saved

branch = sys.argv[1]
state = json.load(open(os.path.join(branch, "curriculum.json")))
stage1 = f"{state['species']}_stage1"
path = os.path.join(branch, stage1, runs.CHECKPOINT)
checkpoint = runs.read_checkpoint(path)
assert not checkpoint["config"].get("observe_heading", False), "already widened"
env_name, _, saved = from_saved(checkpoint["config"])
config = get_config(env_name, saved | dict(observe_heading=True))
layout = {g["name"]: g for g in tasks.observation_layout(config, tasks.load_model(config))}
at = layout["heading_error"]["start"]
policy = dict(checkpoint["policy"])
for key, value in list(policy.items()):
    value = np.asarray(value)
    if key.endswith("['normalizer'].mean"):
        policy[key] = np.insert(value, at, 0.0)
    elif key.endswith("['normalizer'].var"):
        policy[key] = np.insert(value, at, 1.0)
    elif key.endswith("['Dense_0']['kernel']") or key.endswith("['Dense_3']['kernel']"):
        policy[key] = np.insert(value, at, 0.0, axis=0)
runs.write_checkpoint(path, checkpoint | dict(policy=policy, config=dict(checkpoint["config"], observe_heading=True)))
print(f"{path}: widened at observation index {at}; resume with python ppo_mjx.py --resume {branch}")
