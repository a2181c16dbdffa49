"""Check a species model against the conventions the legged tasks read (README, "Adding a species"), before
anything compiles. `check_model(mj_model, config)` raises `ConfigError("<config["model"]>: <what is wrong>")` for
the first violation found:

1. the first joint is a free joint on a body named `pelvis`; a body named `head` exists;
2. a keyframe named `home` exists;
3. a site named `imu` exists;
4. every name in the config's `tip_sites` is a site of the model;
5. every joint after the root is a hinge with a range, driven by exactly one actuator in qpos order (actuator i
   drives joint i + 1), each a `<position kp=... kv=...>` actuator with a ctrlrange;
6. the home keyframe's ctrl equals its hinge angles (action 0 holds home);
7. a plane geom `floor` at height 0; besides planes, only foot geoms collide: geoms of bodies whose name contains
   `foot` or `toe` (`*_foot`, `*_toes`), each a sphere, capsule, ellipsoid or box;
8. the config's heights fit the home pose resting on the floor, with H its pelvis height and Hh its head height:
   0.8 H <= standing_height < H, 0.5 H <= min_pelvis_height < standing_height, 0.3 Hh <= min_head_height < Hh.

Only mujoco, numpy and configs are imported: no jax, so the checks cost milliseconds.
"""

import mujoco
import numpy as np

from configs import ConfigError

GEOM = mujoco.mjtGeom
HEIGHTS = "restate the heights for this body (README, Adding a species)"


def check_model(mj_model, config):
    """Raise ConfigError naming `config["model"]` and the first convention `mj_model` or `config`'s heights break."""
    m = mj_model

    def fail(what):
        raise ConfigError(f"{config['model']}: {what}")

    def named(kind, name):
        return mujoco.mj_name2id(m, kind, name) >= 0

    # 1-3: the names the tasks look up.
    if m.njnt == 0 or m.jnt_type[0] != mujoco.mjtJoint.mjJNT_FREE or m.body(m.jnt_bodyid[0]).name != "pelvis":
        found = "no joint"
        if m.njnt:
            kind = mujoco.mjtJoint(m.jnt_type[0]).name.removeprefix("mjJNT_").lower()
            found = f"a {kind} joint '{m.joint(0).name}' on body '{m.body(m.jnt_bodyid[0]).name}'"
        fail(f"the first joint must be a free joint on the body 'pelvis' (the root); found {found}")
    if not named(mujoco.mjtObj.mjOBJ_BODY, "head"):
        fail("no body named 'head'")
    if not named(mujoco.mjtObj.mjOBJ_KEY, "home"):
        fail("no keyframe named 'home'")
    if not named(mujoco.mjtObj.mjOBJ_SITE, "imu"):
        fail("no site named 'imu' (put it at the pelvis origin)")
    sites = [m.site(i).name for i in range(m.nsite)]
    for tip in config.get("tip_sites", ()):
        if tip not in sites:
            fail(f"tip site '{tip}' (config tip_sites) is not a site of the model; its sites: {', '.join(sites)}")

    # 5: the tasks map action i to actuator i and compare it with qpos[7 + i], clipped to the joint range.
    for j in range(1, m.njnt):
        if m.jnt_type[j] != mujoco.mjtJoint.mjJNT_HINGE:
            fail(f"joint '{m.joint(j).name}' must be a hinge (every joint after the free root is)")
        if not m.jnt_limited[j]:
            fail(f"hinge '{m.joint(j).name}' needs a range (resets clip the joint angles to it)")
    for i in range(m.nu):
        joint = m.actuator_trnid[i, 0] if m.actuator_trntype[i] == mujoco.mjtTrn.mjTRN_JOINT else -1
        if i + 1 >= m.njnt or joint != i + 1:
            driven = f"drives joint '{m.joint(joint).name}'" if joint >= 0 else "does not drive a joint"
            expected = f"hinge '{m.joint(i + 1).name}'" if i + 1 < m.njnt else "no joint (every hinge is driven)"
            fail(f"actuator {i} '{m.actuator(i).name}' {driven} but qpos order expects {expected}: one actuator per "
                 f"hinge, in qpos order")
        gain, bias = m.actuator_gainprm[i], m.actuator_biasprm[i]
        fixed = m.actuator_gaintype[i] == mujoco.mjtGain.mjGAIN_FIXED
        if not fixed or m.actuator_biastype[i] != mujoco.mjtBias.mjBIAS_AFFINE or bias[1] != -gain[0] or bias[2] > 0:
            fail(f"actuator '{m.actuator(i).name}' must be a <position kp=... kv=...> actuator (action 0 holds home)")
        if not m.actuator_ctrllimited[i]:
            fail(f"actuator '{m.actuator(i).name}' needs a ctrlrange (inheritrange=\"1\"): actions scale to it")
    if m.nu != m.njnt - 1:
        fail(f"hinge '{m.joint(m.nu + 1).name}' has no actuator: one position actuator per hinge, in qpos order")

    # 6: the tasks send ctrl = home ctrl for action 0.
    home = m.keyframe("home")
    if not np.allclose(home.ctrl, home.qpos[7:], rtol=0, atol=1e-6):
        i = int(np.argmax(np.abs(home.ctrl - home.qpos[7:])))
        fail(f"home keyframe ctrl of '{m.actuator(i).name}' is {home.ctrl[i]:g} but its joint angle is "
             f"{home.qpos[7 + i]:g}: home ctrl must equal the home joint angles (action 0 holds home)")

    # 7: a colliding body geom would prop the animal up off its feet; resets rest the lowest point of the colliding
    # geoms on the floor with envs.lowest_point, which knows only these four shapes.
    floor = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_GEOM, "floor")
    if floor < 0 or m.geom_type[floor] != GEOM.mjGEOM_PLANE or m.geom_pos[floor, 2] != 0:
        fail("no floor: a plane geom named 'floor' at height 0")
    feet = foot_geoms(m)
    for g in feet:
        body = m.body(m.geom_bodyid[g]).name
        if "foot" not in body and "toe" not in body:
            fail(f"geom '{m.geom(g).name}' of body '{body}' collides (contype/conaffinity nonzero); only geoms of foot "
                 f"bodies (name containing 'foot' or 'toe') may, every other geom needs contype=conaffinity=0")
        if int(m.geom_type[g]) not in (GEOM.mjGEOM_SPHERE, GEOM.mjGEOM_CAPSULE, GEOM.mjGEOM_ELLIPSOID, GEOM.mjGEOM_BOX):
            fail(f"foot geom '{m.geom(g).name}' must be a sphere, capsule, ellipsoid or box")
    if not feet:
        fail("no colliding foot geoms (bodies named '*_foot' / '*_toes' with contype=2 conaffinity=1)")

    # 8: standing_height counts standing in evaluation and the min_* heights end episodes as falls: copied from a
    # body of another size they count every start as fallen, or never count a fall.
    pelvis_height, head_height = home_heights(m, feet)
    standing, min_pelvis, min_head = config["standing_height"], config["min_pelvis_height"], config["min_head_height"]
    if not 0.8 * pelvis_height <= standing < pelvis_height:
        fail(f"standing_height {standing:g} m must be between 80% and 100% of the home pelvis height "
             f"{pelvis_height:.3f} m; {HEIGHTS}")
    if not 0.5 * pelvis_height <= min_pelvis < standing:
        fail(f"min_pelvis_height {min_pelvis:g} m must be at least 50% of the home pelvis height {pelvis_height:.3f} m "
             f"and below standing_height {standing:g} m; {HEIGHTS}")
    if not 0.3 * head_height <= min_head < head_height:
        fail(f"min_head_height {min_head:g} m must be between 30% and 100% of the home head height "
             f"{head_height:.3f} m; {HEIGHTS}")


def foot_geoms(m):
    """The geoms that collide, planes aside: the feet of a model that follows the conventions."""
    return [g for g in range(m.ngeom)
            if m.geom_type[g] != GEOM.mjGEOM_PLANE and (m.geom_contype[g] or m.geom_conaffinity[g])]


def home_heights(m, feet=None):
    """(pelvis height, head body height) in the home pose lowered until its lowest foot point touches the floor, as
    resets place it (MuJoCo measures each foot geom's distance to the floor plane); `feet` defaults to `foot_geoms`."""
    feet = foot_geoms(m) if feet is None else feet
    data = mujoco.MjData(m)
    mujoco.mj_resetDataKeyframe(m, data, m.keyframe("home").id)
    mujoco.mj_kinematics(m, data)
    gap = min(mujoco.mj_geomDistance(m, data, g, m.geom("floor").id, 10.0, None) for g in feet)
    return data.qpos[2] - gap, data.xpos[m.body("head").id, 2] - gap
