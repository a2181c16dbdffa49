"""Env steps/s of this stopped timing's stage-1 progress lines against the same updates of two earlier timings.

    python results/experiments/scratch_timing_stopped/speed_compare.py    # reads the earlier consoles with git show
"""
import os
import re
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))

EARLIER = {"the whole timing at e739b02 (64e6bc1)": "64e6bc1:results/experiments/scratch_timing/{}.console.log",
           "the stopped timing at 65ddb87 (fdef291)": "fdef291:results/experiments/scratch_timing_gates/{}.console.log"}


def stage1_rates(text):
    """{update: env steps/s} of the progress lines before the first stage ends."""
    rates = {}
    for line in text.split("stage 2/3")[0].splitlines():
        m = re.match(r"update (\d+)/\d+\s+steps [\d,]+\s+([\d,]+) steps/s", line)
        if m:
            rates[int(m.group(1))] = float(m.group(2).replace(",", ""))
    return rates


for species in ("trex", "velociraptor", "brachiosaurus"):
    here = stage1_rates(open(os.path.join(HERE, f"{species}.console.log")).read())
    for name, path in EARLIER.items():
        there = stage1_rates(subprocess.run(["git", "show", path.format(species)], capture_output=True, text=True,
                                            check=True).stdout)
        updates = [u for u in here if u in there]
        a, b = (sum(r[u] for u in updates) / len(updates) for r in (here, there))
        print(f"{species}: updates 4-{max(updates)}, {a:,.0f} env steps/s against {b:,.0f} in {name}: {a / b:.3f}")
