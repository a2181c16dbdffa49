#!/bin/bash
# On the lent GPU machine: the Velociraptor's stage 2 branched with the GPU sizes, a 25M-step cap and no gate
# evaluations (.gpu/velociraptor), trained alone; stopped as soon as stage 2 has finished (its final 64-episode
# evaluation written) or SECONDS after this script starts; the finished stage 2 is shrunk to the policy and packed.
set -u
budget=${1:-215}
start=$(date +%s)
source .whl/install.sh || exit 1
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=0.85 JAX_DEFAULT_MATMUL_PRECISION=highest
python3 ppo_mjx.py --resume .gpu/velociraptor > "$OUT/velociraptor25M.console.log" 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null; do
    grep -q "stage 3/3" "$OUT/velociraptor25M.console.log" && break
    (( $(date +%s) - start > budget )) && break
    sleep 1
done
kill -9 $pid 2>/dev/null
rm -rf .gpu/velociraptor/velociraptor_stage3
if [ -f .gpu/velociraptor/velociraptor_stage2/eval.json ]; then
    python3 ppo_mjx.py --policy-only .gpu/velociraptor 2>&1 | tail -3
    tar czf "$OUT/velociraptor25M.tgz" --exclude='velociraptor_stage1' -C .gpu velociraptor
fi
ls -la "$OUT" .gpu/velociraptor/velociraptor_stage2 2>&1
echo "wall $(( $(date +%s) - start )) s"
