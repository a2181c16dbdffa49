"""Chatter of a policy as trained, and with its foot-contact observation held at a constant (1: every sensor
touching; 0: none), diagnose.py's measures, plain MuJoCo, 6 episodes per command."""
import os, sys
sys.path.insert(0, os.path.join(os.getcwd(), "results/experiments/velociraptor_slow_servos")); sys.path.insert(0, os.getcwd())
import diagnose, play
base = play.load_exported(sys.argv[1])
groups = {g["name"]: g for g in base.spec["observation"]["groups"]}["foot_contacts"]
observe = play.observe
def held(value):
    def fixed(exported, data, prev_action, noise):
        obs = observe(exported, data, prev_action, noise)
        obs[groups["start"]:groups["stop"]] = value
        return obs
    return fixed
commands = diagnose.COMMANDS if base.schedule is not None else (None,)
print(sys.argv[1], "| falls | yaw rate std, |error| | RMS speed above 6 Hz | sum qacc^2 per step | touchdowns per s")
for name, fn in (("as_trained", observe), ("contacts_1", held(1.0)), ("contacts_0", held(0.0))):
    play.observe = fn
    for command in commands:
        print(name, command, diagnose.played(base, command, []), flush=True)
