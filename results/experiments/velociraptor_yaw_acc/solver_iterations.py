import sys, numpy as np, mujoco
sys.path.insert(0, '.')
import play, tasks
src = sys.argv[1]
ex = play.load_exported(src)
m = ex.mj_model
print('opt', m.opt.iterations, m.opt.ls_iterations, m.opt.solver, m.opt.timestep, m.opt.integrator, m.opt.cone)
for it, ls, integ in [(2, 6, None), (50, 50, None), (2, 6, 'implicitfast'), (50, 50, 'implicitfast')]:
    m.opt.iterations, m.opt.ls_iterations = it, ls
    if integ: m.opt.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    else: m.opt.integrator = mujoco.mjtIntegrator.mjINT_EULER
    data, draws = mujoco.MjData(m), play.numpy_draws(np.random.default_rng(0))
    rows = []
    def on_step(d, push):
        v, yaw = tasks.heading_velocity(ex.body, d)
        rows.append([yaw, d.userdata[2], *(v - d.userdata[:2])])
    errs = []; dys = []; lens = []
    for ep in range(8):
        rows.clear()
        play.run_episode(ex, data, draws, on_step=on_step)
        r = np.array(rows); errs.append(np.abs(r[:, 0] - r[:, 1]).mean()); dys.append((np.diff(r[:, 0])**2).mean()); lens.append(len(r))
    print(it, ls, integ, 'yaw err', np.round(np.mean(errs), 3), 'rms dyaw', np.round(np.sqrt(np.mean(dys)), 3), 'lens', lens)
