"""What makes an env's step program big, and so slow to trace and compile? The functions of its lowered (StableHLO)
module by size, largest first, with how often each is called, and the instructions of XLA's optimized module.

    python analysis/program_size.py --env trex_stage2             # the step of one env, as tests/test_export.py jits it
    python analysis/program_size.py --env trex_stage2 --top 12 --no-compile

Every `jax.jit` the step calls (MJX's step and kinematics, jax.numpy's helpers, the random draws) stays a function of
its own in the lowered module; functions of one name (`kinematics`, `kinematics_1782`: the same Python function traced
for different arguments) are summed. XLA inlines every call before it compiles, so a function called from two places
is compiled twice. Prints a Markdown table and the times it took (the XLA flags are the environment's).
"""

import argparse
import collections
import os
import re
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import startup  # noqa: E402

startup.before_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import envs  # noqa: E402
from configs import ConfigError  # noqa: E402


def function_sizes(module_text):
    """{function name without its numeric suffix: [lines, call sites]} of a lowered module's text."""
    sizes = collections.defaultdict(lambda: [0, 0])
    for function in re.split(r"\n  func\.func ", module_text)[1:]:
        name = re.match(r"(?:private |public )?@([\w.]+)", function).group(1)
        sizes[re.sub(r"_\d+$", "", name)][0] += function.count("\n")
    for name in re.findall(r"call @([\w.]+)", module_text):
        sizes[re.sub(r"_\d+$", "", name)][1] += 1
    return sizes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="trex_stage1")
    parser.add_argument("--top", type=int, default=8, help="functions to list")
    parser.add_argument("--no-compile", action="store_true", help="stop after lowering")
    args = parser.parse_args(argv)
    try:
        env = envs.make_env(args.env)
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    state = jax.eval_shape(env.reset, jax.random.key(0))
    start = time.monotonic()
    traced = jax.jit(env.step).trace(state, jnp.zeros(env.action_size))
    trace_s, start = time.monotonic() - start, time.monotonic()
    lowered = traced.lower()
    lower_s = time.monotonic() - start
    sizes = function_sizes(lowered.as_text())
    total = sum(lines for lines, _ in sizes.values())
    print(f"{args.env} step: lowered in {trace_s:.1f} s tracing + {lower_s:.1f} s lowering; {total:,} lines in "
          f"{len(sizes)} functions\n\n| function | lines | share | call sites |\n|---|---:|---:|---:|")
    for name, (lines, calls) in sorted(sizes.items(), key=lambda item: -item[1][0])[:args.top]:
        print(f"| {name} | {lines:,} | {lines / total:.0%} | {calls} |")
    if not args.no_compile:
        start = time.monotonic()
        optimized = lowered.compile().as_text()
        instructions = sum(" = " in line for line in optimized.splitlines())
        print(f"\nXLA: {instructions:,} instructions after optimization, compiled in {time.monotonic() - start:.1f} s "
              f"(XLA_FLAGS={os.environ.get('XLA_FLAGS', '')!r})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
