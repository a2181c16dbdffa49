#!/bin/bash
# after both branches stop at stage 3: 64 fresh episodes of each stage 2, mean action, MJX and plain MuJoCo
cd /work/condim
while pgrep -f "resume results/runs/vr_condim4_s" > /dev/null; do sleep 20; done
for s in 0 1; do
  S=results/runs/vr_condim4_s$s/velociraptor_stage2
  for physics in mjx mujoco; do
    python evaluate.py $S --episodes 64 --seed 2000000 --physics $physics --out $S/eval_${physics}_mean.json \
      > results/runs/vr_condim4_s$s.eval_$physics.log 2>&1
  done
done
echo evaluated $(date)
