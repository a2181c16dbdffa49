#!/bin/bash
# evaluations of one stage folder of a Velociraptor curriculum: 64 fresh episodes, seed 2,000,000, mean action,
# MJX and plain MuJoCo; stage 1 also with every push at 0.9 m/s (1.5x the top) and its chatter; stage 2 its chatter
# usage: eval_stage.sh <curriculum folder> <1|2|3>    (from the repository root; chatter_stage1.py, its diagnose.py
# and chatter.py from 451e07b, see README.md, beside this script)
set -e
st=$1/velociraptor_stage$2
for ph in mjx mujoco; do
  python evaluate.py $st --episodes 64 --seed 2000000 --physics $ph --out $st/eval_${ph}_mean.json
  [ "$2" = 1 ] && python evaluate.py $st --episodes 64 --seed 2000000 --physics $ph --set push_speed=0.9 --out $st/eval_${ph}_mean_push0.9.json
done
python export.py $st
[ "$2" = 1 ] && python $(dirname "$0")/chatter_stage1.py $st > $st/chatter.txt
[ "$2" = 2 ] && python $(dirname "$0")/chatter.py $st --episodes 8 > $st/chatter.txt
true
