#!/bin/bash
cd /work/c4
ev2() {
  s=$1; until grep -q "stage 3/3" results/runs/vr_c4_full_s$s.console.log; do sleep 10; done
  d=results/runs/vr_c4_full_s$s/velociraptor_stage2
  for p in mjx mujoco; do python evaluate.py $d --episodes 64 --seed 2000000 --physics $p --out $d/eval_${p}_mean.json; done
}
ev2 0 > /work/scratch/eval2_s0.log 2>&1 &
ev2 1 > /work/scratch/eval2_s1.log 2>&1 &
wait
