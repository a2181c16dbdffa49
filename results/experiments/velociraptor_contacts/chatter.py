"""How much does a stage-2 policy's body chatter? Plain MuJoCo through play.py (the exported ONNX policy, randomization
and pushes as trained, actions low-passed as trained: play.applied), commands held for whole episodes: per command, the yaw rate's standard deviation and mean
absolute error over each episode after its first second, the joints' RMS speed above 6 Hz (the 50 Hz control's upper
band) and its share of their whole speed, and the mean of sum(qacc[6:]^2) per control step (what `joint_acc` costs).

    python results/experiments/velociraptor_action_smoothing/chatter.py <stage 2 folder> [--episodes 8]  (from the root)
"""
import argparse
import os
import sys

sys.path.insert(0, os.getcwd())
import play  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

COMMANDS = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 0.5))
SETTLE = 50  # control steps left out: the start


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("source")
    parser.add_argument("--episodes", type=int, default=8)
    args = parser.parse_args()
    base = play.load_exported(args.source)
    dt = base.config["ctrl_dt"]
    print(f"{args.source}: {args.episodes} episodes per command, plain MuJoCo, seed 0")
    print("command | yaw rate std, |error| (rad/s) | joint RMS speed above 6 Hz (rad/s), its share | sum qacc^2 per step")
    for command in COMMANDS:
        exported = play.holding(base, command)
        model = exported.mj_model
        data, draws = mujoco.MjData(model), play.numpy_draws(np.random.default_rng(0))
        stds, errors, high, shares, accs = [], [], [], [], []
        for _ in range(args.episodes):
            (obs, episode), action = play.reset(exported, data, draws), np.zeros(exported.mj_model.nu)
            yaw_rates, speeds = [], []
            for t in range(exported.config["episode_length"]):
                action = play.applied(exported, obs, action)
                episode, _ = play.control_step(exported, data, action, draws, t, episode)
                if bool(exported.task.is_terminated(data)):
                    break
                if t >= SETTLE:
                    yaw_rates.append(float(play.tasks.heading_velocity(exported.body, data)[1]))
                    speeds.append(data.qvel[6:].copy())
                    accs.append(float(np.sum(data.qacc[6:] ** 2)))
                obs = play.observe(exported, data, action, draws.noise(t + 1))
            if len(yaw_rates) < 100:
                continue
            yaw_rates, speeds = np.asarray(yaw_rates), np.asarray(speeds)
            stds.append(yaw_rates.std())
            errors.append(np.abs(yaw_rates - command[2]).mean())
            centred = speeds - speeds.mean(0)
            spectrum = np.fft.rfft(centred, axis=0)
            spectrum[np.fft.rfftfreq(len(speeds), dt) < 6.0] = 0.0
            above = np.fft.irfft(spectrum, n=len(speeds), axis=0)  # the joint speeds' part above 6 Hz
            high.append(np.sqrt(np.mean(above ** 2)))
            shares.append(np.sum(above ** 2) / np.sum(centred ** 2))
        print(f"{','.join(f'{c:g}' for c in command):>9} | {np.mean(stds):.2f}, {np.mean(errors):.2f} | "
              f"{np.mean(high):.2f}, {np.mean(shares):.2f} | {np.mean(accs):,.0f}")


if __name__ == "__main__":
    main()
