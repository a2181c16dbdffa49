#!/bin/bash
# evaluate each snapshot at 1.5x the top push (MJX, mean) once it appears, at nice 19 beside the training
G=/work/main/results/runs/vr1_lr1e-4_gamma0.995_5M
cd /work/main
while true; do
  for d in $G/snap_seed*; do
    [ -f $d/checkpoint.msgpack ] || continue
    [ -f $d/eval_mjx_mean_push_1.5x_top.json ] && continue
    echo "$(date +%T) python evaluate.py $d --episodes 64 --seed 2000000 --set push_speed=0.9 --out $d/eval_mjx_mean_push_1.5x_top.json" >> $G/evaluations.log
    nice -n 19 python evaluate.py $d --episodes 64 --seed 2000000 --set push_speed=0.9 --out $d/eval_mjx_mean_push_1.5x_top.json > /dev/null 2>&1
  done
  [ -f $G/summary.json ] && break
  sleep 30
done
