#!/bin/bash
# The stage-1 checks of one curriculum folder ($1): 64 fresh episodes, seed 2,000,000, mean action, randomization on.
S=$1/velociraptor_stage1
for physics in mjx mujoco; do
  python evaluate.py $S --episodes 64 --seed 2000000 --physics $physics --set push_speed=0.9 --out $S/eval_${physics}_mean_push_1.5x_top.json
  python evaluate.py $S --episodes 64 --seed 2000000 --physics $physics --out $S/eval_${physics}_mean.json
done
python evaluate.py $S --episodes 64 --seed 2000000 --set push_interval=0 --out $S/eval_mjx_mean_no_pushes.json
