"""evaluate.py on a stage trained by trex_stress.py: the same patched stage-1 gate, so that its saved config loads."""
import sys

import evaluate
from configs import CONFIGS

gate = {k: v for k, v in CONFIGS["trex_stage1"]["gate"].items() if k != "min_env_steps"}
CONFIGS["trex_stage1"]["gate"] = dict(gate, stress=dict(settings=dict(push_speed=0.6), min=dict(success_rate=0.8)))
evaluate.main(sys.argv[1:])
