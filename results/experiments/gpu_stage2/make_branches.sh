#!/bin/bash
# The T-Rex's and the Velociraptor's committed curricula branched at stage 2 into .gpu/<species>, with the GPU sizes of configs/ppo.py (4096
# envs, 32 minibatches, a 20M-step cap per stage) in place of the CPU ones they were trained with, 64-episode gate
# evaluations, a checkpoint (and metrics) every 10 updates; the T-Rex with left-right symmetry (augmentation and loss 1.0). Run here, from the repo root.
set -eu
gpu="--set num_envs=4096 --set num_minibatches=32 --set total_timesteps=20000000 --set eval_episodes=64"
gpu="$gpu --set log_every=5 --set gate.eval_every=10 --set checkpoint_every=10"
python analysis/branch_curriculum.py results/trex_curriculum_cpu_seed0 .gpu/trex --stage 2 $gpu \
    --set symmetry_augmentation=True --set symmetry_loss=1.0
python analysis/branch_curriculum.py results/velociraptor_curriculum_cpu_seed0 .gpu/velociraptor --stage 2 $gpu
