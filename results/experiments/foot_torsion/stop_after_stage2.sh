#!/bin/bash
# stop each branch when its stage 3 starts (stage 2 is what is screened)
cd /work/condim
while true; do
  left=0
  for s in 0 1; do
    log=results/runs/vr_condim4_s$s.console.log
    if pgrep -f "resume results/runs/vr_condim4_s$s$" > /dev/null; then
      left=1
      if grep -q "stage 3/3" $log; then pkill -INT -f "resume results/runs/vr_condim4_s$s$"; fi
    fi
  done
  [ $left = 0 ] && break
  sleep 20
done
echo stopped $(date)
