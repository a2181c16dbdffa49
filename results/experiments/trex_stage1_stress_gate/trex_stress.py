"""The T-Rex's curriculum with a stage-1 stress test (0.8 with every push at 0.6 m/s, 1.5x the top) in place of its
3M-step floor: python trex_stress.py --seed 0 --out OUT (from the repository root, PYTHONPATH=.)."""
import sys

import cli
from configs import CONFIGS

gate = {k: v for k, v in CONFIGS["trex_stage1"]["gate"].items() if k != "min_env_steps"}
CONFIGS["trex_stage1"]["gate"] = dict(gate, stress=dict(settings=dict(push_speed=0.6), min=dict(success_rate=0.8)))
cli.main(["--env", "trex", "--curriculum", *sys.argv[1:]])
