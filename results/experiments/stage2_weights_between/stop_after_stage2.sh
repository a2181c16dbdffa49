#!/bin/bash
# stop_after_stage2.sh RUN: SIGINT the curriculum resumed from RUN once its stage 3 begins
run=$1; log=$run.console.log
until grep -q "stage 3/3" $log 2>/dev/null; do
  pgrep -f "resume $run\$" >/dev/null || exit 0
  sleep 15
done
while pgrep -f "resume $run\$" >/dev/null; do pkill -INT -f "resume $run\$"; sleep 20; done
