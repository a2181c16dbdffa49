#!/bin/bash
# eval_stage2.sh RUN SPECIES: 64 fresh episodes of RUN's stage 2, MJX and plain MuJoCo, once its stage 2 has finished
run=$1; sp=$2; st=$run/${sp}_stage2
until [ -f $st/eval.json ]; do sleep 20; done
python evaluate.py $st --episodes 64 --seed 2000000 --out $st/eval_mjx_mean.json > $st/evaluate_mjx.log 2>&1
python evaluate.py $st --episodes 64 --seed 2000000 --physics mujoco --out $st/eval_mujoco_mean.json > $st/evaluate_mujoco.log 2>&1
