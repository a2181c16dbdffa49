"""How high each stage-3 tip (jaw, claw, head) reaches with the body standing at home: the highest point over the motor
targets the policy's actions can set (plain MuJoCo kinematics, nominal model).

    python benchmarks/tip_reach.py       # writes results/tip_reach.json

The pelvis stays where it stands at home; the hinges between it and each tip take random targets within the action's
reach (`tasks.action_to_ctrl`: `action_scale` of the way from home to each control limit), each taken as the joint
angle (a position servo's rest point, ignoring the sag under load), and every other joint stays at home. Set
against the target heights of stage 3 it says which targets a tip can reach without lowering or tilting the body,
and how far past that the top of the range asks it to go; each is measured at the configs' `action_scale` and at
wider ones (ACTION_SCALES).
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

import runs  # noqa: E402
import tasks  # noqa: E402
from configs import get_config  # noqa: E402

SPECIES = ("trex", "velociraptor", "brachiosaurus")
SAMPLES = 5_000  # random poses of each tip's chain, then as many small steps from the highest so far
ACTION_SCALES = (0.5, 0.75, 1.0)  # action_scale values tried: the configs' 0.5 and wider ranges


def chain_actuators(model, site):
    """Actuators of the hinges between the free root and `site`'s body."""
    bodies, body = set(), model.site_bodyid[site]
    while model.body_parentid[body] != 0:  # stop below the free root's body
        bodies.add(body)
        body = model.body_parentid[body]
    return [a for a in range(model.nu) if model.jnt_bodyid[model.actuator_trnid[a, 0]] in bodies]


def highest_reach(model, config, site, rng):
    """(the tip's height at home, the highest it reaches over action-reachable targets of its chain): SAMPLES random
    actions of the chain's actuators, then SAMPLES random steps (0.05 wide) from the best, kept when higher."""
    body = tasks.legged_body(config, model, np)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, model.keyframe("home").id)
    mujoco.mj_kinematics(model, data)
    home_height = float(data.site_xpos[site, 2])
    actuators = chain_actuators(model, site)
    qpos_address = model.jnt_qposadr[model.actuator_trnid[actuators, 0]]

    def height(chain_action):
        action = np.zeros(model.nu)
        action[actuators] = chain_action
        data.qpos[qpos_address] = tasks.action_to_ctrl(body, action)[actuators]
        mujoco.mj_kinematics(model, data)
        return float(data.site_xpos[site, 2])

    best_action = max((rng.uniform(-1.0, 1.0, len(actuators)) for _ in range(SAMPLES)), key=height)
    best = height(best_action)
    for _ in range(SAMPLES):
        action = np.clip(best_action + rng.normal(0.0, 0.05, len(actuators)), -1.0, 1.0)
        if (reached := height(action)) > best:
            best_action, best = action, reached
    return home_height, max(home_height, best)


def main():
    start = time.monotonic()
    rng = np.random.default_rng(0)
    reach = {}
    for species in SPECIES:
        stage3 = get_config(f"{species}_stage3")
        model = tasks.load_model(stage3)  # the same model at every action_scale
        (low, high), radius = stage3["target_height"], stage3["success_radius"]
        for name in stage3["tip_sites"]:
            for scale in ACTION_SCALES:
                config = get_config(f"{species}_stage3", {"action_scale": scale})
                home, best = highest_reach(model, config, model.site(name).id, rng)
                reach.setdefault(f"{species}/{name}", dict(home_height=home, target_height=[low, high],
                                                           success_radius=radius, highest={}))["highest"][scale] = best
                print(f"{species} {name}, action_scale {scale}: {home:.2f} m at home, reaches {best:.2f} m; targets "
                      f"{low}-{high} m up, success within {radius} m", flush=True)
    record = dict(command="python benchmarks/tip_reach.py", date=time.strftime("%Y-%m-%d"), machine=runs.machine(),
                  samples=SAMPLES, reach=reach, wall_s=time.monotonic() - start)
    runs.atomic_write(os.path.join(ROOT, "results", "tip_reach.json"), json.dumps(record, indent=1) + "\n")


if __name__ == "__main__":
    main()
