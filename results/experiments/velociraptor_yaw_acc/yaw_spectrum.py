import sys, numpy as np, mujoco
sys.path.insert(0, '.')
import play
from analysis import tracking_errors as te
src = sys.argv[1]
ex = play.load_exported(src)
data, draws = mujoco.MjData(ex.mj_model), play.numpy_draws(np.random.default_rng(0))
bands = [(0, 1), (1, 3), (3, 6), (6, 25)]
power = np.zeros(len(bands)); vpower = np.zeros(len(bands))
for _ in range(12):
    rows, rec = te.traced_episode(ex, data, draws)
    if len(rows) < 500: continue
    for s, e in te.command_segments(rows[:, 3:6]):
        if e - s < 100: continue
        seg = rows[s:e]
        for col, acc in ((2, power), (0, vpower)):
            x = seg[:, col] - seg[:, col].mean()
            f = np.fft.rfftfreq(len(x), 0.02); p = np.abs(np.fft.rfft(x)) ** 2
            for i, (lo, hi) in enumerate(bands):
                acc[i] += p[(f >= lo) & (f < hi)].sum()
print(src.split('/')[-1], 'yaw-rate power share by band (Hz)', dict(zip(bands, np.round(power / power.sum(), 2))), ' forward speed:', dict(zip(bands, np.round(vpower / vpower.sum(), 2))))
