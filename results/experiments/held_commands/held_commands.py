"""How a stage-2 policy follows commands held for whole episodes, in plain MuJoCo (play.py, randomization and pushes
as trained): per command, over `EPISODES` episodes from seed 0, each episode's mean yaw rate (heading change from
control step 50 to the end, over that time), the mean per-step yaw-rate error (what the gate judges) and the share of
episodes that reach the time limit.

    python results/experiments/held_commands/held_commands.py results/velociraptor_curriculum_cpu_seed0/velociraptor_stage2
"""
import os
import sys

import mujoco
import numpy as np

sys.path.insert(0, os.getcwd())
import play  # noqa: E402

EPISODES = 6
COMMANDS = [(0, 0, 0), (0.5, 0, 0), (1.0, 0, 0), (2.5, 0, 0), (-0.5, 0, 0), (0, 0.3, 0), (0, 0, 0.5), (0, 0, -0.5),
            (0, 0, 0.75), (0, 0, 1.0), (0, 0, -1.0), (1.0, 0, 0.5), (2.0, 0, 1.0)]


def yaw(quaternions):
    w, x, y, z = quaternions.T
    return np.unwrap(np.arctan2(2 * (w * z + x * y), 1 - 2 * (y ** 2 + z ** 2)))


def main(source):
    print(f"{source}: command (forward, left m/s; yaw rate rad/s) | mean yaw rate per episode (rad/s) | per-step "
          f"yaw-rate error | to the time limit")
    for command in COMMANDS:
        exported = play.holding(play.load_exported(source), np.asarray(command, np.float32))
        data, rng = mujoco.MjData(exported.mj_model), np.random.default_rng(0)
        rates, errors, alive = [], [], []
        for _ in range(EPISODES):
            poses = []
            record, _ = play.run_episode(exported, data, play.numpy_draws(rng), poses)
            heading = yaw(np.asarray(poses)[:, 3:7])
            steps = len(heading) - 51
            rates.append((heading[-1] - heading[50]) / (exported.config["ctrl_dt"] * steps) if steps > 10 else np.nan)
            errors.append(record["yaw_rate_error_mean"])
            alive.append(record["reached_time_limit"])
        print(f"{command} | {' '.join(f'{r:.2f}' for r in rates)} | {np.mean(errors):.2f} | {np.mean(alive):.2f}",
              flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
