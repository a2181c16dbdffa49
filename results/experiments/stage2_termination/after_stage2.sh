#!/bin/bash
# Usage: after_stage2.sh RUN SPECIES: stop RUN's curriculum once stage 2 ends, then evaluate its stage 2 (MJX and plain MuJoCo side by side).
run=$1; log=$run.console.log; s=$run/$2_stage2
until grep -q "stage 3/3" $log; do
  if ! pgrep -f "resume $run\$" >/dev/null; then break; fi
  sleep 20
done
# SIGINT is ignored between stages (background jobs start with it ignored): repeat it until the run stops
while pgrep -f "resume $run\$" >/dev/null; do pkill -INT -f "resume $run\$"; sleep 30; done
python evaluate.py $s --episodes 64 --seed 2000000 --out $s/eval_mjx_mean.json > $run.console_eval_mjx.log 2>&1 &
python evaluate.py $s --episodes 64 --seed 2000000 --physics mujoco --out $s/eval_mujoco_mean.json > $run.console_eval_mujoco.log 2>&1 &
wait
echo done >> $run.console_eval_mjx.log
