#!/bin/bash
cd /work/main
for s in 0 1; do st=/tmp/exp/cws_seed$s/velociraptor_stage2
 for ph in mjx mujoco; do
  nice python evaluate.py $st --episodes 64 --seed 2000000 --physics $ph --out $st/eval_${ph}_mean.json
 done
done
