#!/bin/bash
# stage-1 evaluations of one run folder: 1.5x pushes and training pushes, MJX and MuJoCo; chatter
cd "$(git rev-parse --show-toplevel)"
st=$1/velociraptor_stage1
for ph in mjx mujoco; do
  python evaluate.py $st --episodes 64 --seed 2000000 --physics $ph --set push_speed=0.9 --out $st/eval_${ph}_mean_push0.9.json
  python evaluate.py $st --episodes 64 --seed 2000000 --physics $ph --out $st/eval_${ph}_mean.json
done
python export.py $st
python chatter_stage1.py $st  # at 451e07b, beside its diagnose.py
