"""A curriculum folder whose stage 1 is a committed stage-1 policy with its observation widened by the velocity command
(three inputs the first layers read with zero weight, normalized as mean 0, variance 1): the same policy on the new
observation. `python ppo_mjx.py --resume OUT` then trains stages 2 (velocity commands) and 3 from it.

    python pad_stage1.py results/trex_curriculum_cpu_seed0 OUT
"""
import json, os, shutil, sys
sys.path.insert(0, os.getcwd())
import numpy as np
import runs, tasks
from configs import get_config, from_saved

source, out = sys.argv[1], sys.argv[2]
state = json.load(open(os.path.join(source, "curriculum.json")))
species = state["species"]
stage1 = f"{species}_stage1"
os.makedirs(os.path.join(out, stage1))
for name in ("config.json", "metrics.csv", "gate.json", "eval.json"):
    shutil.copy(os.path.join(source, stage1, name), os.path.join(out, stage1, name))
checkpoint = runs.read_checkpoint(os.path.join(source, stage1, runs.CHECKPOINT))
layout = {g["name"]: g for g in tasks.observation_layout(get_config(stage1), tasks.load_model(get_config(stage1)))}
at = layout["command"]["start"]
policy = dict(checkpoint["policy"])
for key, value in list(policy.items()):
    value = np.asarray(value)
    if key.endswith("['normalizer'].mean"):
        policy[key] = np.insert(value, [at] * 3, 0.0)
    elif key.endswith("['normalizer'].var"):
        policy[key] = np.insert(value, [at] * 3, 1.0)
    elif key.endswith("['Dense_0']['kernel']") or key.endswith("['Dense_3']['kernel']"):
        policy[key] = np.insert(value, [at] * 3, 0.0, axis=0)
config = dict(checkpoint["config"], observe_command=True)
runs.write_checkpoint(os.path.join(out, stage1, runs.CHECKPOINT),
                      {k: v for k, v in checkpoint.items() if k != "runner"} | dict(policy=policy, config=config))
state = dict(state, sessions=[], stages=state["stages"][:1])
json.dump(state, open(os.path.join(out, "curriculum.json"), "w"), indent=1)
print(f"{out}: {stage1} padded at observation index {at}; resume with python ppo_mjx.py --resume {out}")
