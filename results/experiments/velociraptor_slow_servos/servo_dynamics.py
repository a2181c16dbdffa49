"""Each actuated joint of the three models as a servo at the home pose: the joint's diagonal inertia (links and
armature, mj_fullM), the position gain kp and the joint damping kd, the damping ratio kd / (2 sqrt(kp I)), the natural
frequency sqrt(kp / I) / 2 pi, and the explicit-damping number dt kd / I at the 4 ms step (eulerdamp is off, so the
damping integrates explicitly: past about 1 the step rings, past 2 it diverges).

    python results/experiments/velociraptor_slow_servos/servo_dynamics.py   (from the root)
"""
import mujoco
import numpy as np

for name in ("trex", "velociraptor", "brachiosaurus"):
    model = mujoco.MjModel.from_xml_path(f"models/{name}.xml")
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    inertia = np.zeros((model.nv, model.nv))
    mujoco.mj_fullM(model, data, inertia)
    print(f"{name}: {model.body_subtreemass[1]:.1f} kg")
    for a in range(model.nu):
        dof = model.jnt_dofadr[model.actuator_trnid[a, 0]]
        i, kp, kd = inertia[dof, dof], model.actuator_gainprm[a, 0], model.dof_damping[dof]
        print(f"  {model.actuator(a).name:18s} I {i:7.3f} (armature {model.dof_armature[dof]:.2f})  kp {kp:6.0f}  "
              f"kd {kd:6.1f}  ratio {kd / (2 * np.sqrt(kp * i)):4.2f}  f_n {np.sqrt(kp / i) / 2 / np.pi:4.1f} Hz  "
              f"dt kd / I {model.opt.timestep * kd / i:4.2f}")
