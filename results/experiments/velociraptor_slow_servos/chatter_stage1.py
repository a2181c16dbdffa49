"""A stage-1 policy's chatter as trained (diagnose.py's `as_trained` way: plain MuJoCo through play.py, randomization
and pushes as trained, 6 episodes, seed 0): falls, the yaw rate's standard deviation and mean |error|, the joints' RMS
speed above 6 Hz, the summed squared joint accelerations per step, touchdowns per second. Export the stage first.

    python results/experiments/velociraptor_slow_servos/chatter_stage1.py <stage 1 folder>   (from the root)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.getcwd())
import diagnose  # noqa: E402
import play  # noqa: E402

base = play.load_exported(sys.argv[1])
print(sys.argv[1], "| falls | yaw rate std, |error| (rad/s) | joint RMS speed above 6 Hz (rad/s) | sum qacc^2 per step | "
      "touchdowns per s")
print(diagnose.played(base, None, []))
