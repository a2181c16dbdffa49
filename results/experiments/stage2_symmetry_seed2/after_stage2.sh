#!/usr/bin/env bash
# Stop curriculum run $1 (species $2) once its stage 3 begins, then evaluate its stage 2: 64 fresh episodes, seed
# 2000000, mean action, MJX and plain MuJoCo; then its tracking-error split.
run=$1; species=$2
cd /work/symloss
until grep -q "stage 3/3" $run.console.log 2>/dev/null || grep -q "^curriculum .*done\|Traceback" $run.console.log; do sleep 20; done
pkill -f "resume $run\$" ; sleep 5
stage=$run/${species}_stage2
for physics in mjx mujoco; do
  python evaluate.py $stage --episodes 64 --seed 2000000 --physics $physics > $stage/eval_${physics}.log 2>&1
done
python analysis/tracking_errors.py $stage --episodes 64 --out $stage/tracking_errors.json > $stage/tracking_errors.log 2>&1
echo done > $run.evaluated
