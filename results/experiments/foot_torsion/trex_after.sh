#!/bin/bash
# the T-Rex branch: stop it when its stage 3 starts, then 64 fresh episodes of its stage 2, MJX and plain MuJoCo
cd /work/condim
run=trex_condim4_s0
while pgrep -f "resume results/runs/$run$" > /dev/null; do
  grep -q "stage 3/3" results/runs/$run.console.log && pkill -INT -f "resume results/runs/$run$"
  sleep 20
done
S=results/runs/$run/trex_stage2
for physics in mjx mujoco; do
  python evaluate.py $S --episodes 64 --seed 2000000 --physics $physics --out $S/eval_${physics}_mean.json \
    > results/runs/$run.eval_$physics.log 2>&1
done
echo evaluated $(date)
