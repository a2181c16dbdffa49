#!/bin/bash
# stop each run once its stage 3 starts (the stage-2 evaluation is written by then)
cd /work/caps
while true; do
  left=0
  for r in vr_angvel vr_lambda; do
    if grep -q "stage 3/3" results/runs/$r.console.log 2>/dev/null; then
      pkill -INT -f "resume results/runs/$r$" ; sleep 2; pkill -INT -f "resume results/runs/$r$"
    else left=1; fi
  done
  [ $left = 0 ] && break
  sleep 20
done
