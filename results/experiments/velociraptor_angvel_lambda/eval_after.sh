#!/bin/bash
# once a run's stage 2 is written, evaluate it on the table's 64 fresh episodes, MJX and plain MuJoCo
cd /work/caps
r=$1; sp=$2
d=results/runs/$r/${sp}_stage2
while ! grep -q "stage 3/3" results/runs/$r.console.log 2>/dev/null; do sleep 30; done
while pgrep -f "resume results/runs/$r$" >/dev/null; do sleep 10; done
python evaluate.py $d --episodes 64 --seed 2000000 --out results/runs/$r.eval_mjx.json > results/runs/$r.eval_mjx.log 2>&1
python evaluate.py $d --episodes 64 --seed 2000000 --physics mujoco --out results/runs/$r.eval_mujoco.json > results/runs/$r.eval_mujoco.log 2>&1
