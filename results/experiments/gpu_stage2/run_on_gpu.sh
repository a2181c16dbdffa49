#!/bin/bash
# On the lent GPU machine, from the repo root, with .whl (tools' gpu_wheels.py) and .gpu carried:
#     bash results/experiments/gpu_stage2/run_on_gpu.sh SECONDS
# .gpu/<species> are the committed curricula branched at stage 2 with the GPU sizes (see make_branches.sh); the two
# train side by side, each in its own process, until the stage-2 gate or cap and on into stage 3, and are stopped
# (Ctrl-C: a checkpoint is written) SECONDS after this script starts, less a margin for packing what comes back.
set -u
budget=${1:-520}
start=$(date +%s)
source .whl/install.sh || exit 1
# two processes share the GPU; f32 matmuls in full f32 (JAX's GPU default is TF32), as the CPU computes them
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=0.45 JAX_DEFAULT_MATMUL_PRECISION=highest
{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    echo "cpus: $(nproc)"
    python3 -c "import jax, jaxlib, mujoco, flax, optax, distrax; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'mujoco', mujoco.__version__, 'flax', flax.__version__, 'optax', optax.__version__, 'distrax', distrax.__version__, jax.devices())"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
nvidia-smi dmon -s um -d 5 > "$OUT/dmon.txt" 2>&1 &
dmon=$!
left=$(( budget - ($(date +%s) - start) - 75 ))
echo "training for at most $left s"
pids=()
for species in trex velociraptor; do
    timeout -s INT -k 60 "$left" python3 ppo_mjx.py --resume ".gpu/$species" > ".gpu/$species.console.log" 2>&1 &
    pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; echo "exit $?"; done
kill "$dmon"
cp .gpu/*.console.log "$OUT/"
tar czf "$OUT/runs.tgz" --exclude='*_stage1' -C .gpu .
tail -n 3 .gpu/*.console.log
echo "wall $(( $(date +%s) - start )) s"
