#!/bin/bash
# collect.sh DEST RUN SPECIES: copy a stage-2 branch's record (no checkpoints or exports) into DEST/RUN
dest=$1/$2; run=runs/$2; s=$3_stage2
mkdir -p $dest/$s
cp $run/curriculum.json $run/curriculum.md $dest/
cp $run.console.log $dest/console.log
for f in $run.console_eval_mjx.log $run.console_eval_mujoco.log; do [ -f $f ] && cp $f $dest/$(basename $f | sed "s/^$2\.//"); done
for f in config.json gate.json metrics.csv curves.png eval.json eval_mjx_mean.json eval_mujoco_mean.json tracking_errors.json; do [ -f $run/$s/$f ] && cp $run/$s/$f $dest/$s/; done
ls $dest $dest/$s
