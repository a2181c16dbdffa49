#!/bin/bash
# Evaluate each seed's stage 1 once stage 2 has started (its stage-1 folder is final).
cd /work/c4
for s in 0 1; do
  until grep -q "stage 2/3" results/runs/vr_c4_full_s$s.console.log; do sleep 20; done
done
for s in 0 1; do
  d=results/runs/vr_c4_full_s$s/velociraptor_stage1
  ev() { python evaluate.py $d --episodes 64 --seed 2000000 "$@"; }
  ev --physics mjx --set push_speed=0.9 --out $d/eval_mjx_mean_push_1.5x_top.json
  ev --physics mujoco --set push_speed=0.9 --out $d/eval_mujoco_mean_push_1.5x_top.json
  ev --physics mjx --out $d/eval_mjx_mean.json
done
