#!/bin/bash
# 64-episode evaluations of a run folder, MJX and MuJoCo, mean action; extra args (e.g. --set push_speed=0.9) after $2
f=$1; tag=$2; shift 2
cd /work/main
for ph in mjx mujoco; do
  python evaluate.py $f --episodes 64 --seed 2000000 --physics $ph "$@" --out $f/eval_${ph}_${tag}.json 2>&1 | grep -v Warn | tail -1
done
