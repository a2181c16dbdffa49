#!/bin/bash
# Evaluate branch s's stage 2: 64 fresh episodes (seed 2,000,000), mean action, MJX and plain MuJoCo; export;
# the tracking errors split (analysis/tracking_errors.py, 64 episodes).
s=$1; st=runs/vr_heading10M_s$s/velociraptor_stage2
for ph in mjx mujoco; do
  python evaluate.py $st --episodes 64 --seed 2000000 --physics $ph --out $st/eval_${ph}_mean.json
done
python export.py $st
python analysis/tracking_errors.py $st --episodes 64 --out $st/tracking_errors.json
echo done
