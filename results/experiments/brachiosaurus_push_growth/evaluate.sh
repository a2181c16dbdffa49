# The checks of each continued stage 1 (run from the project root): bash results/experiments/brachiosaurus_push_growth/evaluate.sh FOLDER
set -e
f=$1/brachiosaurus_stage1
e="python evaluate.py $f --episodes 64 --seed 2000000"
$e --set "push_speed=(1.2,1.6)" --out $f/eval_mjx_mean_push_1.2-1.6.json
$e --set push_speed=2.4 --out $f/eval_mjx_mean_push_2.4.json
$e --set push_interval=0 --out $f/eval_mjx_mean_no_pushes.json
python export.py $f
$e --physics mujoco --set "push_speed=(1.2,1.6)" --out $f/eval_mujoco_mean_push_1.2-1.6.json
$e --physics mujoco --set push_speed=2.4 --out $f/eval_mujoco_mean_push_2.4.json
