#!/bin/bash
# On the lent GPU machine, from the repo root, with .whl (tools' gpu_wheels.py) and .gpu carried:
#     bash .gpu/run_on_gpu.sh SECONDS
# .gpu/velociraptor is the committed Velociraptor curriculum branched at stage 2 with the GPU sizes and the GPU stage-2
# budget (4096 envs, 32 minibatches, 50M cap, a gate evaluation every 50 updates). It trains alone on the GPU until the
# gate or the cap and on into stage 3, and is stopped (Ctrl-C: a checkpoint is written) SECONDS after this script
# starts, less a margin for shrinking its checkpoints to the policy alone and packing them.
set -u
budget=${1:-560}
start=$(date +%s)
source .whl/install.sh || exit 1
# f32 matmuls in full f32 (JAX's GPU default is TF32), as the CPU computes them
export PYTHONUNBUFFERED=1 XLA_PYTHON_CLIENT_MEM_FRACTION=0.85 JAX_DEFAULT_MATMUL_PRECISION=highest
{
    nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv
    echo "cpus: $(nproc)"
    python3 -c "import jax, jaxlib, mujoco, flax, optax, distrax; print('jax', jax.__version__, 'jaxlib', jaxlib.__version__, 'mujoco', mujoco.__version__, 'flax', flax.__version__, 'optax', optax.__version__, 'distrax', distrax.__version__, jax.devices())"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
nvidia-smi dmon -s um -d 5 > "$OUT/dmon.txt" 2>&1 &
dmon=$!
left=$(( budget - ($(date +%s) - start) - 50 ))
echo "training for at most $left s"
timeout -s INT -k 40 "$left" python3 ppo_mjx.py --resume .gpu/velociraptor > "$OUT/velociraptor.console.log" 2>&1
echo "exit $?"
kill "$dmon"
python3 ppo_mjx.py --policy-only .gpu/velociraptor 2>&1 | tail -5
tar czf "$OUT/velociraptor.tgz" --exclude='*_stage1' -C .gpu velociraptor
ls -la "$OUT"
tail -n 4 "$OUT/velociraptor.console.log"
echo "wall $(( $(date +%s) - start )) s"
