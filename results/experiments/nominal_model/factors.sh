# The committed T-Rex stage 2 without pushes: randomized, then each randomized factor at its nominal value alone,
# then all of them (64 episodes, seed 2,000,000, mean action, MJX). Run from the repository root.
out=results/experiments/nominal_model
ev() { name=$1; shift; python evaluate.py results/trex_curriculum_cpu_seed0/trex_stage2 --episodes 64 --seed 2000000 \
  --set push_interval=0 "$@" --out $out/trex_stage2_no_pushes_$name.json > /dev/null; }
noise_off=$(for g in gravity pelvis_height linear_velocity angular_velocity joint_angles joint_velocities \
  target_horizontal target_height; do echo --set randomize.obs_noise.$g=0.0; done)
scales_one="--set randomize.body_mass=1.0 --set randomize.kp=1.0 --set randomize.damping=1.0 --set randomize.armature=1.0 --set randomize.payload=0.0"
ev randomized
ev friction1 --set randomize.friction=1.0
ev delay0 --set randomize.action_delay=0
ev noise0 $noise_off
ev home_offset0 --set randomize.home_offset=0.0
ev scales1 $scales_one
ev all_nominal $scales_one --set randomize.friction=1.0 --set randomize.action_delay=0 --set randomize.home_offset=0.0 $noise_off
ev randomize_off --set randomize.enabled=False
