#!/usr/bin/env bash
# Once curriculum run $1's stage 3 begins, evaluate its stage 2 (64 fresh episodes, seed 2000000, mean action, MJX and
# plain MuJoCo; then its tracking-error split); with $2 = stop, stop the run first.
run=$1; action=$2
cd /work/pair
until grep -q "stage 3/3" $run.console.log 2>/dev/null || grep -q "Traceback" $run.console.log; do sleep 20; done
if [ "$action" = stop ]; then pkill -INT -f "resume $run\$"; sleep 60; pkill -f "resume $run\$"; fi
stage=$run/trex_stage2
for physics in mjx mujoco; do
  python evaluate.py $stage --episodes 64 --seed 2000000 --physics $physics > $stage/eval_${physics}.log 2>&1
done
python analysis/tracking_errors.py $stage --episodes 64 --out $stage/tracking_errors.json > $stage/tracking_errors.log 2>&1
echo done > $run.stage2_evaluated
