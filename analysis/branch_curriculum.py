"""How does a curriculum do from one stage on under other settings? Branch it at that stage and train the branch.

The branch is a new curriculum folder holding a finished one's stages before `--stage`, with extra settings, so that
`python ppo_mjx.py --resume <new>` trains that stage (warm-started from the copied stage before it, as the curriculum
would) and the later ones with them. An experiment on stage 3 then costs stage 3 only.

    python analysis/branch_curriculum.py results/trex_curriculum_cpu_seed0 results/trex_branch --stage 3 \
        --set reward_weights.success=200
    python ppo_mjx.py --resume results/trex_branch
"""

import argparse
import os
import shutil
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import startup  # noqa: E402

startup.before_jax()

import configs  # noqa: E402
import curriculum  # noqa: E402
from configs import ConfigError, parse_overrides  # noqa: E402


def branch(source, out, stage, overrides):
    """Copy `source`'s curriculum state and stage folders before `stage` (1-based) into the new folder `out`, with
    `overrides` added to its settings; each override must name a key of a stage the branch trains. The folder
    appears whole or not at all: it is assembled beside `out` and renamed."""
    state = curriculum.load_state(source)
    names = configs.curriculum_stages(state["species"])
    if not 2 <= stage <= min(len(names), len(state["stages"]) + 1):
        raise ConfigError(f"{source}: can branch at stages 2-{min(len(names), len(state['stages']) + 1)}, not {stage}")
    trained = [dict(configs.flatten(configs.CONFIGS[name])) for name in names[stage - 1:]]
    unused = sorted(key for key in overrides if not any(key in keys for keys in trained))
    if unused:
        raise ConfigError(f"no stage from {names[stage - 1]} on has config key {', '.join(unused)}")
    if os.path.exists(out):
        raise ConfigError(f"{out} exists; the branch needs a new folder")
    state = dict(state, overrides=state["overrides"] | overrides, stages=state["stages"][:stage - 1])
    curriculum.stage_configs(state["species"], state["overrides"])  # every stage's config builds with them
    parent = os.path.dirname(os.path.abspath(out))
    os.makedirs(parent, exist_ok=True)
    partial = tempfile.mkdtemp(dir=parent, prefix=".branch-")
    try:
        os.chmod(partial, 0o755)  # mkdtemp makes it owner-only
        for name in names[:stage - 1]:
            shutil.copytree(os.path.join(source, name), os.path.join(partial, name))
        curriculum.write_state(partial, state)
        os.rename(partial, out)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="curriculum folder whose earlier stages are copied")
    parser.add_argument("out", help="new curriculum folder")
    parser.add_argument("--stage", type=int, required=True, help="first stage (1-based) the branch trains itself")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="setting added to the curriculum's overrides (each applies to the stages with its key)")
    args = parser.parse_args(argv)
    try:
        branch(args.source, args.out, args.stage, parse_overrides(args.set))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(f"branched {args.source} at stage {args.stage} into {args.out}; train it: python ppo_mjx.py --resume "
          f"{args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
