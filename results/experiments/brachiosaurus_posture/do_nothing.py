"""Zero action, and white noise at the initial std, on the Brachiosaurus' gates as configured in this checkout
(benchmarks/robustness.py's policies, 64 episodes, seed 2,000,000): stage 1 at its training pushes and with every push
at 2.4 m/s, stages 2 and 3 zero action alone. Run from the repository root:
    python results/experiments/brachiosaurus_posture/do_nothing.py > results/experiments/brachiosaurus_posture/do_nothing.json"""
import json
import os
import sys

sys.path[:0] = [os.getcwd(), os.path.join(os.getcwd(), "benchmarks")]
import robustness  # noqa: E402
from configs import get_config, with_overrides  # noqa: E402

results = {}
for name in ("brachiosaurus_stage1", "brachiosaurus_stage2", "brachiosaurus_stage3"):
    config = get_config(name)
    settings = {"training pushes": config}
    if name.endswith("1"):
        settings["every push at 2.4 m/s"] = with_overrides(config, {"push_speed": 2.4})
    for policy in ("zero", "noise") if name.endswith("1") else ("zero",):
        for label, setting in settings.items():
            summary = robustness.summarize(name, setting, policy, 64, 2_000_000)
            results[f"{name}, {policy}, {label}"] = {
                k: summary[k] for k in ("success_rate", "reached_time_limit", "lin_vel_error_mean", "yaw_rate_error_mean")
                if k in summary}
print(json.dumps(results, indent=1))
