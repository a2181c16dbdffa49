#!/bin/bash
# stage-1 evaluations of a curriculum folder's stage 1 (as the committed ones)
s=$1/velociraptor_stage1
python evaluate.py $s --episodes 64 --seed 2000000 --physics mjx --out $s/eval_mjx_mean.json
python evaluate.py $s --episodes 64 --seed 2000000 --physics mjx --set push_speed=0.9 --out $s/eval_mjx_mean_push_1.5x_top.json
python evaluate.py $s --episodes 64 --seed 2000000 --set push_interval=0 --out $s/eval_mjx_mean_no_pushes.json
python evaluate.py $s --episodes 64 --seed 2000000 --physics mujoco --out $s/eval_mujoco_mean.json
python evaluate.py $s --episodes 64 --seed 2000000 --physics mujoco --set push_speed=0.9 --out $s/eval_mujoco_mean_push_1.5x_top.json
