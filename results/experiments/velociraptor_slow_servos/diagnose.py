"""Whose is the Velociraptor's chatter? A stage-2 export in plain MuJoCo through play.py (randomization and pushes as
trained), commands held for whole episodes (6 each; a stage 1 under its pushes alone), played four ways: as trained; with the observation noise off;
with the tail's yaw held at home (its action 0); and with every action 0 (the model's servos holding home). Per way
and command: falls, the yaw rate's standard deviation and mean |error| after the first second, the joints' RMS speed
above 6 Hz and the summed squared joint accelerations per step (as chatter.py), and touchdowns per second summed over
the foot touch sensors.

    python results/experiments/velociraptor_action_smoothing/diagnose.py <stage 2 folder>   (from the root)
"""
import dataclasses
import os
import sys

sys.path.insert(0, os.getcwd())
import play  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

COMMANDS = ((0.0, 0.0, 0.0), (1.0, 0.0, 0.0))
SETTLE = 50  # control steps left out: the start


class Zero:
    """An onnxruntime session's stand-in whose every action is 0."""

    def __init__(self, nu):
        self.nu = nu

    def run(self, outputs, feeds):
        return [np.zeros((1, self.nu), np.float32)]


def played(exported, command, held_at_home, episodes=6):
    exported = exported if command is None else play.holding(exported, command)
    model, dt = exported.mj_model, exported.config["ctrl_dt"]
    data, draws = mujoco.MjData(model), play.numpy_draws(np.random.default_rng(0))
    falls, stds, errors, high, accs, touchdowns = 0, [], [], [], [], []
    for _ in range(episodes):
        (obs, episode), action = play.reset(exported, data, draws), np.zeros(model.nu)
        yaw_rates, speeds, contacts = [], [], []
        for t in range(exported.config["episode_length"]):
            action = play.applied(exported, obs, action)
            action[held_at_home] = 0.0
            episode, _ = play.control_step(exported, data, action, draws, t, episode)
            if bool(exported.task.is_terminated(data)):
                falls += 1
                break
            if t >= SETTLE:
                yaw_rates.append(float(play.tasks.heading_velocity(exported.body, data)[1]))
                speeds.append(data.qvel[6:].copy())
                accs.append(float(np.sum(data.qacc[6:] ** 2)))
                contacts.append(data.sensordata[exported.body.touch_adr] > 1.0)  # as tasks.observation_groups
            obs = play.observe(exported, data, action, draws.noise(t + 1))
        if len(yaw_rates) < 100:
            continue
        yaw_rates, speeds, contacts = np.asarray(yaw_rates), np.asarray(speeds), np.asarray(contacts)
        stds.append(yaw_rates.std())
        errors.append(np.abs(yaw_rates - (0.0 if command is None else command[2])).mean())
        spectrum = np.fft.rfft(speeds - speeds.mean(0), axis=0)
        spectrum[np.fft.rfftfreq(len(speeds), dt) < 6.0] = 0.0
        high.append(np.sqrt(np.mean(np.fft.irfft(spectrum, n=len(speeds), axis=0) ** 2)))
        touchdowns.append(np.sum(~contacts[:-1] & contacts[1:]) / (len(contacts) * dt))
    return (f"falls {falls}/{episodes} | {np.mean(stds):.2f}, {np.mean(errors):.2f} | {np.mean(high):.2f} | "
            f"{np.mean(accs):,.0f} | {np.mean(touchdowns):.1f}")


def main():
    base = play.load_exported(sys.argv[1])
    names = [base.mj_model.actuator(i).name for i in range(base.mj_model.nu)]
    ways = dict(as_trained=(base, []),
                observation_noise_off=(dataclasses.replace(base, plan=dataclasses.replace(base.plan, noise=None)), []),
                tail_yaw_at_home=(base, [names.index("tail_yaw")]),
                every_action_0=(dataclasses.replace(base, session=Zero(base.mj_model.nu)), []))
    print(f"{sys.argv[1]}: 6 episodes per command, plain MuJoCo, seed 0")
    print("way | command | falls | yaw rate std, |error| (rad/s) | joint RMS speed above 6 Hz (rad/s) | "
          "sum qacc^2 per step | touchdowns per s")
    for way, (exported, held_at_home) in ways.items():
        for command in COMMANDS if base.schedule is not None else (None,):
            shown = "none" if command is None else ",".join(f"{c:g}" for c in command)
            print(f"{way} | {shown} | {played(exported, command, held_at_home)}", flush=True)


if __name__ == "__main__":
    main()
