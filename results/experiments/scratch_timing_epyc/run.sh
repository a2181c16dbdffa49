#!/usr/bin/env bash
# The three curricula from scratch side by side (the budget's timing), compared with the committed ones, and the
# retrained stages evaluated on 64 fresh episodes in MJX. Run from anywhere; trains for about 2 h on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../../.."
X=results/experiments/scratch_timing_epyc B=results/runs/budget
python benchmarks/curriculum_budget.py --parent $B   # stopped here at the 120-min mark (see README)
python $X/compare.py $B --out $X/compare.json
python evaluate.py $B/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage1 --episodes 64 --seed 2000000 --set push_speed=2.4 --out $X/evals/brachiosaurus_stage1_push_1.5x.json
python evaluate.py $B/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage2 --episodes 64 --seed 2000000 --out $X/evals/brachiosaurus_stage2.json
python evaluate.py $B/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage3 --episodes 64 --seed 2000000 --out $X/evals/brachiosaurus_stage3.json
python evaluate.py $B/trex_curriculum_cpu_seed0/trex_stage2 --episodes 64 --seed 2000000 --out $X/evals/trex_stage2.json
python evaluate.py $B/velociraptor_curriculum_cpu_seed0/velociraptor_stage1 --episodes 64 --seed 2000000 --set push_speed=0.9 --out $X/evals/velociraptor_stage1_push_1.5x.json
python evaluate.py $B/velociraptor_curriculum_cpu_seed0/velociraptor_stage2 --episodes 64 --seed 2000000 --out $X/evals/velociraptor_stage2.json
for n in 2 3; do
    python evaluate.py $B/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage$n --episodes 64 --seed 2000000 --physics mujoco --out $X/evals/brachiosaurus_stage${n}_mujoco.json
done
python evaluate.py $B/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage1 --episodes 64 --seed 2000000 --physics mujoco --set push_speed=2.4 --out $X/evals/brachiosaurus_stage1_push_1.5x_mujoco.json
