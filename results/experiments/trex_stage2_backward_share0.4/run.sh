#!/bin/bash
# branch the committed T-Rex curriculum at stage 2 with --set args ($3...), seed $2, train stage 2 only, evaluate it
# on the committed command schedule (backward_share 0.25): 64 fresh episodes in both physics, 128 others in MJX
cd "$(dirname "$0")/../../.."  # the repository root
R=results/runs; out=$R/$1; seed=$2; shift 2
python analysis/branch_curriculum.py results/trex_curriculum_cpu_seed0 $out --stage 2 "$@" > $out.branch.log 2>&1 || exit 1
python - $out $seed <<'PY'
import json, sys
p = sys.argv[1] + "/curriculum.json"; d = json.load(open(p)); d["seed"] = int(sys.argv[2]); json.dump(d, open(p, "w"), indent=1)
PY
python ppo_mjx.py --resume $out > $out.console.log 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
  if grep -q "stage 3/3" $out.console.log; then kill $pid; break; fi
  sleep 15
done
wait $pid
S=$out/trex_stage2; E=(--episodes 64 --seed 2000000 --set command.backward_share=0.25)
python evaluate.py $S "${E[@]}" --out $S/eval_mjx_mean.json > $out.eval_mjx.log 2>&1
python evaluate.py $S "${E[@]}" --physics mujoco --out $S/eval_mujoco_mean.json > $out.eval_mujoco.log 2>&1
python evaluate.py $S --episodes 128 --seed 3000000 --set command.backward_share=0.25 --out $S/eval_mjx_mean_128.json > $out.eval_128.log 2>&1
echo done > $out.s2_done
