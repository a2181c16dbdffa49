#!/bin/bash
# stage-2 evaluations and tracking-error split of a curriculum folder's stage 2
s=$1/velociraptor_stage2
python evaluate.py $s --episodes 64 --seed 2000000 --out $s/eval_mjx_mean.json
python evaluate.py $s --episodes 64 --seed 2000000 --physics mujoco --out $s/eval_mujoco_mean.json
python export.py $s
python analysis/tracking_errors.py $s --episodes 64 --out $s/tracking_errors.json
