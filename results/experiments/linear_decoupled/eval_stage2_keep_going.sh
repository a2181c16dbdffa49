#!/bin/bash
# Usage: eval_stage2_keep_going.sh RUN SPECIES: once RUN's curriculum reaches stage 3, evaluate its stage 2 (MJX and plain MuJoCo) while stage 3 trains on.
run=$1; log=$run.console.log; s=$run/$2_stage2
until grep -q "stage 3/3" $log; do
  if ! pgrep -f "resume $run\$" >/dev/null; then break; fi
  sleep 20
done
python evaluate.py $s --episodes 64 --seed 2000000 --out $s/eval_mjx_mean.json > $run.console_eval_mjx.log 2>&1
python evaluate.py $s --episodes 64 --seed 2000000 --physics mujoco --out $s/eval_mujoco_mean.json > $run.console_eval_mujoco.log 2>&1
echo done >> $run.console_eval_mjx.log
