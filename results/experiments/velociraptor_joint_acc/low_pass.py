"""The diagnosis only: a stage-2 policy's held commands with its actions low-passed (each action = alpha x the
policy's + (1 - alpha) x the last one), in plain MuJoCo through play.py; alpha 1 is the policy as trained. Run from
the repository root: python results/experiments/velociraptor_joint_acc/low_pass.py <stage 2 folder> 0.7"""
import dataclasses
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "analysis"))
import play  # noqa: E402
import held_commands  # noqa: E402

source, alpha = sys.argv[1], float(sys.argv[2])
base = play.load_exported(source)


class LowPass:
    """The policy's ONNX session, its outputs low-passed."""

    def __init__(self, inner):
        self.inner, self.last = inner, None

    def run(self, *args, **kwargs):
        action = self.inner.run(*args, **kwargs)[0][0]
        self.last = action if self.last is None else alpha * action + (1 - alpha) * self.last
        return [self.last[None]]


for command in [(0, 0, 0), (1, 0, 0), (0, 0, 0.5)]:
    exported = dataclasses.replace(base, session=LowPass(base.session))
    row = held_commands.held(play.holding(exported, command), command, 8, 0)
    print(f"alpha {alpha} {command} | to the time limit {row['reached_time_limit']:.2f} | mean yaw rates "
          f"{' '.join(f'{r:.2f}' for r in row['yaw_rate'])} | per-step errors {row['lin_vel_error_mean']:.2f} m/s, "
          f"{row['yaw_rate_error_mean']:.2f} rad/s", flush=True)
