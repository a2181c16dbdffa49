#!/bin/bash
# stage-3 evaluations of a curriculum folder's stage 3
s=$1/velociraptor_stage3
python evaluate.py $s --episodes 64 --seed 2000000 --physics mjx --out $s/eval_mjx_mean.json
python evaluate.py $s --episodes 64 --seed 2000000 --physics mujoco --out $s/eval_mujoco_mean.json
