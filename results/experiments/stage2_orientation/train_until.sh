#!/bin/bash
# train (ppo_mjx.py args after $2) until <dir>/<stage>/eval.json exists, then stop it
dir=$1; stage=$2; shift 2
cd /work/main
python ppo_mjx.py "$@" > $dir.log 2>&1 &
pat="python ppo_mjx.py.*(--out|--resume) $dir( |$)"
sleep 10
while [ ! -f $dir/$stage/eval.json ]; do sleep 20; pgrep -f "$pat" >/dev/null || break; done
while pgrep -f "$pat" >/dev/null; do pkill -INT -f "$pat"; sleep 30; done
echo done > $dir.finished
