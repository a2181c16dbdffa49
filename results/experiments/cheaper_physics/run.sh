#!/bin/bash
# Cheaper physics against the 2-h budget: stage 2 of the T-Rex and the Velociraptor branched from the committed stage 1
# with 4 physics substeps instead of 5 (sim_dt 0.005), alone and with one solver iteration instead of 2; and the
# committed stages evaluated, untrained, under each lever. Two trainings side by side on the 2-core CPU.
set -e
cd "$(dirname "$0")/../../.."
R=results/runs
stage2() {  # species, folder, overrides...
  local sp=$1 out=$R/$2; shift 2
  python analysis/branch_curriculum.py results/${sp}_curriculum_cpu_seed0 $out --stage 2 "$@"
  python ppo_mjx.py --resume $out  # stopped once stage 3 starts
  local S=$out/${sp}_stage2 E=(--episodes 64 --seed 2000000)
  python evaluate.py $S "${E[@]}" --out $S/eval_mjx_mean.json
  python evaluate.py $S "${E[@]}" --physics mujoco --out $S/eval_mujoco_mean.json
  python evaluate.py $S --episodes 128 --seed 3000000 --out $S/eval_mjx_mean_128.json
}
stage2 trex tx_cheap --set sim_dt=0.005 --set solver_iterations=1 & stage2 velociraptor vr_cheap --set sim_dt=0.005 --set solver_iterations=1; wait
stage2 trex tx_dt5 --set sim_dt=0.005 & stage2 velociraptor vr_dt5 --set sim_dt=0.005; wait
# the committed stages, untrained, under each lever (MJX, 64 episodes; stage 1 also at 1.5x the top push), into cross/
O=results/experiments/cheaper_physics/cross; mkdir -p $O
for lever in "sim_dt=0.005 solver_iterations=1:cheap" "sim_dt=0.005:sim_dt=0.005" "solver_iterations=1:solver_iterations=1"; do
  sets=$(for s in ${lever%%:*}; do echo -n "--set $s "; done)
  for sp in trex velociraptor; do
    python evaluate.py results/${sp}_curriculum_cpu_seed0/${sp}_stage2 --episodes 64 --seed 2000000 $sets \
      --out $O/${sp}_s2_committed_at_${lever##*:}.json
  done
done
for sp in trex velociraptor brachiosaurus; do
  C=results/${sp}_curriculum_cpu_seed0 E=(--episodes 64 --seed 2000000 --set sim_dt=0.005)
  top=$(python -c "print({'trex': 0.6, 'velociraptor': 0.9, 'brachiosaurus': 2.4}['$sp'])")
  python evaluate.py $C/${sp}_stage1 "${E[@]}" --out $O/${sp}_s1_dt5.json
  python evaluate.py $C/${sp}_stage1 "${E[@]}" --set push_speed=$top --out $O/${sp}_s1_15x_dt5.json
  python evaluate.py $C/${sp}_stage3 "${E[@]}" --out $O/${sp}_s3_dt5.json
done
python evaluate.py results/brachiosaurus_curriculum_cpu_seed0/brachiosaurus_stage2 "${E[@]}" --out $O/brachiosaurus_s2_dt5.json
# what each lever buys: the T-Rex's stage 2 timed against each, alternately, on an otherwise idle machine
python benchmarks/throughput.py --env trex_stage2 --versus sim_dt=0.005 --versus solver_iterations=1 \
  --versus sim_dt=0.005,solver_iterations=1
