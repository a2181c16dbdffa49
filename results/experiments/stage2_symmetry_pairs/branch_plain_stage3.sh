#!/usr/bin/env bash
# Once runs/paired_s0's stage 3 begins, branch it at stage 3 with symmetry off and train that stage 3 beside it.
cd /work/pair
until grep -q "stage 3/3" runs/paired_s0.console.log 2>/dev/null || grep -q "Traceback" runs/paired_s0.console.log; do sleep 20; done
python analysis/branch_curriculum.py runs/paired_s0 runs/paired_s0_plain3 --stage 3 --set symmetry_augmentation=False \
    --set symmetry_loss=0.0 > runs/paired_s0_plain3.branch.log 2>&1
python ppo_mjx.py --resume runs/paired_s0_plain3 > runs/paired_s0_plain3.console.log 2>&1
