#!/bin/bash
cd /work/main
S=$1; OUT=$2
for s in "randomize.home_offset=0.0" "randomize.enabled=False" "randomize.action_delay=0" "randomize.kp=1.0" "randomize.friction=1.0" "push_interval=0"; do
  n=$(echo $s | tr '=.' '__')
  python evaluate.py $S --episodes 64 --seed 2000000 --set $s --out $OUT/$n.json > $OUT/$n.log 2>&1
done
echo DONE > $OUT/DONE
