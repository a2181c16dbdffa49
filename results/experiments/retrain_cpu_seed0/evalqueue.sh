#!/bin/bash
# Evaluate each stage of one retrained curriculum as soon as its eval.json is written, at nice 19 so the trainings
# keep the CPU; the commands are those results/README.md lists.
sp=$1; top=$2
cd /work/main
C=results/runs/retrain/${sp}_curriculum_cpu_seed0
E="nice -n 19 python evaluate.py"
for n in 1 2 3; do
  S=$C/${sp}_stage$n
  while [ ! -f $S/eval.json ]; do sleep 30; done
  echo "$(date +%T) evaluating $S"
  $E $S --episodes 64 --seed 2000000 || echo "FAILED mjx $S"
  $E $S --episodes 64 --seed 2000000 --physics mujoco || echo "FAILED mujoco $S"
  if [ $n = 1 ]; then
    $E $S --episodes 64 --seed 2000000 --set push_speed=$top --out $S/eval_mjx_mean_push_1.5x_top.json || echo FAILED
    $E $S --episodes 64 --seed 2000000 --set push_interval=0 --out $S/eval_mjx_mean_no_pushes.json || echo FAILED
  fi
  if [ $n = 3 ] && [ $sp = trex ]; then
    $E $S --episodes 128 --seed 2000000 --out $S/eval_mjx_mean_128.json || echo FAILED
    $E $S --episodes 128 --seed 2000000 --physics mujoco --out $S/eval_mujoco_mean_128.json || echo FAILED
  fi
done
for n in 1 2 3; do $E $C/${sp}_stage$n --episodes 64 --seed 2000000 --sampled || echo FAILED; done
echo "$(date +%T) done"
