"""Can the Brachiosaurus learn to step against pushes past its training once it stands? A stage 1 continued from
the committed one (its params and normalizer, exploration restarted at the species' std 0.22) with harder pushes,
gated as the Velociraptor's stage 1 is: 0.95 at its own pushes, then a stress test of 0.8 with every push at
2.4 m/s (1.5x the top of the committed range), three in a row; else the 5M-step cap. The stress test is the gate's alone: config.json holds the stage's config.

    python results/experiments/brachiosaurus_push_growth/grow.py OUT --push LOW,HIGH [--seed S] [--start CHECKPOINT] [--set KEY=VALUE]

--start continues another stage 1 instead (e.g. one this script trained).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))

import curriculum  # noqa: E402
import envs  # noqa: E402
import runs  # noqa: E402
import training  # noqa: E402
from configs import parse_overrides, with_overrides  # noqa: E402

SOURCE = "results/brachiosaurus_curriculum_cpu_seed0"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("--push", required=True, help="LOW,HIGH push speeds (m/s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--set", action="append", default=[], help="config override, as ppo_mjx.py's")
    parser.add_argument("--start", default=os.path.join(SOURCE, "brachiosaurus_stage1", "checkpoint.msgpack"))
    args = parser.parse_args()
    low, high = (float(v) for v in args.push.split(","))
    overrides = dict(runs.read_json(os.path.join(SOURCE, "curriculum.json"))["overrides"])
    names, configs = curriculum.stage_configs("brachiosaurus", overrides | parse_overrides(args.set)
                                                    | {"push_speed": (low, high)})
    stage_envs, _ = curriculum.curriculum_envs(names[:1], configs[:1])
    env, config = stage_envs[0], configs[0]
    gate = dict(config["gate"], stress=dict(settings=dict(push_speed=2.4), min=dict(success_rate=0.8)))
    stress = envs.env_from_config(env.name, with_overrides(config, gate["stress"]["settings"]))
    warm = curriculum.restart_exploration(
        training.load_warm_start(args.start, runs.read_checkpoint(args.start), config, env), config["init_log_std"])
    stage_out = os.path.join(args.out, names[0])
    gate_after_chunk, outcome = curriculum.make_gate(gate, os.path.join(stage_out, "gate.json"), (), stress)
    training.run_group(env, [runs.RunSpec(names[0], config, args.seed, stage_out, {})], warm_start=warm,
                       after_chunk=gate_after_chunk, eval_extras=lambda: dict(gate=outcome()))


if __name__ == "__main__":
    main()
