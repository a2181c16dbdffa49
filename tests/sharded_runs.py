"""Runs in a process with two CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count=2), started by
test_sweeps.py: the short cartpole config as seeds 0 and 1 with a seed per device, and seed 0 alone with its envs split
over both devices. Writes the run folders under the folder given; the test compares them with single-device runs."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

import jax  # noqa: E402

import ppo_mjx  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from cartpole import SHORT_CONFIG, make_cartpole_env  # noqa: E402
from configs import ConfigError  # noqa: E402

training.enable_compilation_cache()
out = sys.argv[1]
devices = jax.devices()
assert len(devices) == 2, devices
env = make_cartpole_env(SHORT_CONFIG)
trainer = ppo_mjx.make_trainer(SHORT_CONFIG, env)
seeds = runs.group_runs(SHORT_CONFIG, 0, 2, [{}], out)
key = training.program_key(env, SHORT_CONFIG)
by_member = training.group_layout(trainer, seeds, devices, key)
assert by_member.runner.train_state.params["params"]["log_std"].spec == ("devices",)
by_env = training.group_layout(trainer, seeds[:1], devices, key)
assert by_env.runner.env_state.obs.spec == (None, "devices") and by_env.runner.update.spec == ()
try:
    odd = dict(SHORT_CONFIG, num_envs=63, num_minibatches=1)
    training.group_layout(ppo_mjx.make_trainer(odd, env), runs.group_runs(odd, 0, 3, [{}], out), devices, key)
    raise AssertionError("3 runs of 63 envs were spread over 2 devices")
except ConfigError as error:
    print(error)

group = os.path.join(out, "seeds")
training.run_group(env, runs.group_runs(SHORT_CONFIG, 0, 2, [{}], group), group)
training.run(env, SHORT_CONFIG, 0, os.path.join(out, "envs"))
