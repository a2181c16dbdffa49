#!/usr/bin/env bash
# Once runs/paired_s2's stage 3 begins, stop it and evaluate its stage 2 (64 fresh episodes, seed 2000000, mean action,
# MJX and plain MuJoCo), export it, then its tracking-error split.
cd /work/pair
run=runs/paired_s2
until grep -q "stage 3/3" $run.console.log 2>/dev/null || grep -q "Traceback" $run.console.log; do sleep 20; done
pkill -INT -f "resume $run\$"; sleep 60; pkill -f "resume $run\$"
stage=$run/trex_stage2
for physics in mjx mujoco; do
  python evaluate.py $stage --episodes 64 --seed 2000000 --physics $physics > $stage/eval_${physics}.log 2>&1
done
python export.py $stage > $stage/export.log 2>&1
python analysis/tracking_errors.py $stage --episodes 64 --out $stage/tracking_errors.json > $stage/tracking_errors.log 2>&1
echo done > $run.stage2_evaluated
