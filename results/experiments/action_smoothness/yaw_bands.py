"""The yaw rate's wobble within each command hold of 2 s or more, by frequency band (Hz): its RMS (rad/s) and share of
the variance; 12 episodes of the stage's command schedule in plain MuJoCo (play.py's episodes, seed 0), the export in
the stage folder. From the repository root:

    python results/experiments/action_smoothness/yaw_bands.py <stage 2 folder> [...]
"""
import sys

import mujoco
import numpy as np

sys.path.insert(0, ".")
import play  # noqa: E402
from analysis import tracking_errors  # noqa: E402

BANDS = [(0, 1), (1, 3), (3, 6), (6, 25)]
for source in sys.argv[1:]:
    exported = play.load_exported(source)
    data, draws = mujoco.MjData(exported.mj_model), play.numpy_draws(np.random.default_rng(0))
    power, samples = np.zeros(len(BANDS)), 0
    for _ in range(12):
        rows, _ = tracking_errors.traced_episode(exported, data, draws)
        for start, end in tracking_errors.command_segments(rows[:, 3:6]):
            if end - start < 100:
                continue
            x = rows[start:end, 2] - rows[start:end, 2].mean()
            freq, p = np.fft.rfftfreq(len(x), exported.config["ctrl_dt"]), np.abs(np.fft.rfft(x)) ** 2
            power += [p[(freq >= lo) & (freq < hi)].sum() * 2 / len(x) for lo, hi in BANDS]
            samples += len(x)
    rms = np.sqrt(power / samples)
    print(source, "yaw-rate RMS within holds (rad/s) by band:",
          ", ".join(f"{lo}-{hi} Hz {r:.3f} ({s:.0%})" for (lo, hi), r, s in zip(BANDS, rms, power / power.sum())),
          f"all {np.sqrt(power.sum() / samples):.3f}")
