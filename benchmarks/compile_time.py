"""How long this project's kinds of program take to become runnable on the CPU: tracing and lowering the T-Rex
stage-1 env step (64 envs, vmapped) with startup.py's garbage-collector thresholds and with Python's defaults, and
XLA compiling it with its default fusion emitters, with its older loop emitters (`--xla_cpu_use_fusion_emitters=false`),
with loop emitters without LLVM's optimizations (`--xla_backend_optimization_level=0` too), and with those and without
the three HLO passes that optimize while loops (what tests/conftest.py sets for the suite); the same step inside a
30-step scan (as evaluations, rollouts and training run it) and the whole PPO training of the plain-JAX cartpole
(tests/cartpole.py, 40 updates) likewise, each variant in a fresh process without a compilation cache, and how long
the compiled training then runs.

    python benchmarks/compile_time.py        # writes results/compile_time_cpu.json
"""

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LEVEL_0 = "--xla_cpu_use_fusion_emitters=false --xla_backend_optimization_level=0"
SUITE_XLA_FLAGS = (f"{LEVEL_0} --xla_disable_hlo_passes=while-loop-invariant-code-motion,while-loop-constant-sinking,"
                   "simplify-while-loops")  # tests/conftest.py compiles the suite with these
SUITE = "loop, optimization level 0, no while-loop passes (the test suite's)"
EMITTERS = {"fusion (XLA's default)": "", "loop": "--xla_cpu_use_fusion_emitters=false",
            "loop, optimization level 0": LEVEL_0, SUITE: SUITE_XLA_FLAGS}
PYTHON_GC_DEFAULT = "--python-gc-default"  # measure with Python's garbage-collector thresholds instead of startup.py's
ROLLOUT_STEPS = 30


def measure(python_gc_default):
    """In this process: {program: seconds} for XLA's flags as set in the environment."""
    sys.path[:0] = [ROOT, os.path.join(ROOT, "tests")]
    import gc

    import startup

    thresholds = gc.get_threshold()
    startup.before_jax()
    if python_gc_default:
        gc.set_threshold(*thresholds)
    import jax
    import jax.numpy as jnp

    import envs
    import ppo_mjx
    from cartpole import CONFIG, make_plain_cartpole

    env = envs.make_env("trex_stage1")
    states = jax.jit(jax.vmap(env.reset))(jax.random.split(jax.random.key(0), 64))
    actions = jnp.zeros((ROLLOUT_STEPS, 64, env.action_size))
    start = time.monotonic()
    traced = jax.jit(jax.vmap(env.step)).trace(states, actions[0])
    figures = {"trex_step_trace_s": time.monotonic() - start}
    start = time.monotonic()
    lowered = traced.lower()
    figures["trex_step_lower_s"] = time.monotonic() - start
    start = time.monotonic()
    lowered.compile()
    figures["trex_step_compile_s"] = time.monotonic() - start
    rollout = lambda states, actions: jax.lax.scan(lambda s, a: (jax.vmap(env.step)(s, a), None), states, actions)[0]
    lowered = jax.jit(rollout).lower(states, actions)
    start = time.monotonic()
    lowered.compile()
    figures["trex_step_in_scan_compile_s"] = time.monotonic() - start
    cartpole = make_plain_cartpole()
    lowered = jax.jit(ppo_mjx.make_train(dict(CONFIG, total_timesteps=64 * 32 * 40), cartpole)).lower(
        jax.random.key(0))
    start = time.monotonic()
    train = lowered.compile()
    figures["cartpole_train_compile_s"] = time.monotonic() - start
    start = time.monotonic()
    jax.block_until_ready(train(jax.random.key(0)))
    figures["cartpole_train_run_s"] = time.monotonic() - start
    return figures


def main():
    import runs
    import training  # the instruction set the entry points compile for

    results = {}
    variants = [(name, flag, []) for name, flag in EMITTERS.items()]
    variants.append((f"{SUITE}, Python's default garbage collector", SUITE_XLA_FLAGS, [PYTHON_GC_DEFAULT]))
    for name, flag, options in variants:
        flags = f"{training.XLA_CPU_FLAGS} {flag}".strip()
        result = subprocess.run([sys.executable, __file__, "--measure", *options], capture_output=True, text=True,
                                cwd=ROOT, env=dict(os.environ, XLA_FLAGS=flags))
        if result.returncode:
            sys.exit(result.stderr[-3000:])
        results[name] = dict(xla_flags=flags, **json.loads(result.stdout.strip().splitlines()[-1]))
        print(name, {k: round(v, 1) for k, v in results[name].items() if k.endswith("_s")}, flush=True)
    out = os.path.join(ROOT, "results", "compile_time_cpu.json")
    record = dict(command="python benchmarks/compile_time.py", date=time.strftime("%Y-%m-%d"),
                  machine=runs.machine(), variants=results)
    runs.atomic_write(out, json.dumps(record, indent=1) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        print(json.dumps(measure(PYTHON_GC_DEFAULT in sys.argv)))
    else:
        sys.path.insert(0, ROOT)
        main()
