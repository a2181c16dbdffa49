"""Write models/brachiosaurus.xml with its hip and shoulder roll joints (and so their position actuators' ctrlrange)
widened from +-0.35 rad to +-ROLL: python results/experiments/brachiosaurus_roll_lr/widen_roll.py ROLL OUT.xml"""
import re
import sys

roll, out = float(sys.argv[1]), sys.argv[2]
text = open("models/brachiosaurus.xml").read()
text, count = re.subn(r'(_(?:hip|shoulder)_roll" class="(?:hip|shoulder)_roll" range=)"-0.35 0.35"',
                      rf'\1"-{roll} {roll}"', text)
assert count == 4, count
open(out, "w").write(text)
