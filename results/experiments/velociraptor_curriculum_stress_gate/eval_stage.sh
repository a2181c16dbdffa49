#!/bin/bash
# The checks of stage $2 of one curriculum folder ($1): 64 fresh episodes, seed 2,000,000, randomization on.
S=$1/velociraptor_stage$2
python evaluate.py $S --episodes 64 --seed 2000000 --out $S/eval_mjx_mean.json
python evaluate.py $S --episodes 64 --seed 2000000 --physics mujoco --out $S/eval_mujoco_mean.json
python evaluate.py $S --episodes 64 --seed 2000000 --sampled --out $S/eval_mjx_sampled.json
