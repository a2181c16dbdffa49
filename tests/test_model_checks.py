"""model_checks.check_model: the real species pass, and each broken model or borrowed height gives one ConfigError
line. Fast: MjModels only, nothing compiles."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import jax  # noqa: E402
import pytest  # noqa: E402

import cli  # noqa: E402
import configs  # noqa: E402
import envs  # noqa: E402
import model_checks  # noqa: E402
import tasks  # noqa: E402
from configs import ConfigError  # noqa: E402

HEIGHTS = "restate the heights for this body (README, Adding a species)"


def check(name, overrides=None):
    config = configs.get_config(name, overrides)
    model_checks.check_model(tasks.load_model(config), config)


def broken_model(tmp_path, *replacements, source="trex.xml"):
    """Absolute path of a copy of models/<source> with each (old, new) text replacement made once."""
    with open(os.path.join(tasks.MODELS_DIR, source)) as f:
        text = f.read()
    for old, new in replacements:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    path = tmp_path / source
    path.write_text(text)
    return str(path)


def expect_error(message, name, overrides=None):
    with pytest.raises(ConfigError) as error:
        check(name, overrides)
    assert str(error.value) == message
    assert "\n" not in str(error.value)


@pytest.mark.parametrize("name", sorted(configs.CONFIGS))
def test_real_configs_pass(name):
    check(name)


def test_misspelled_tip_site():
    sites = "imu, l_foot_site, l_toes_site, r_foot_site, r_toes_site, jaw_tip, tail_tip, target"
    expect_error(f"trex.xml: tip site 'jaw_tp' (config tip_sites) is not a site of the model; its sites: {sites}",
                 "trex_stage3", {"tip_sites": ("jaw_tp",)})


KNEE = '<position name="l_knee" joint="l_knee" class="knee"/>'
ANKLE = '<position name="l_ankle" joint="l_ankle" class="ankle"/>'
PELVIS = '<geom name="pelvis" type="ellipsoid"'
# Three slides and a ball keep the keyframe's 7 root coordinates, so the model still compiles.
NOT_FREE = ('<joint name="root_x" type="slide" axis="1 0 0"/><joint name="root_y" type="slide" axis="0 1 0"/>'
            '<joint name="root_z" type="slide" axis="0 0 1"/><joint name="root_rot" type="ball"/>')
# Broken copies of models/trex.xml: (text replacement, the error after "<path>: ").
BROKEN = {
    "no home keyframe": (('<key name="home"', '<key name="rest"'), "no keyframe named 'home'"),
    "actuators out of qpos order": ((f"{KNEE}\n    {ANKLE}", f"{ANKLE}\n    {KNEE}"),
                                    "actuator 2 'l_ankle' drives joint 'l_ankle' but qpos order expects hinge "
                                    "'l_knee': one actuator per hinge, in qpos order"),
    "no imu site": (('<site name="imu" size="0.02"/>', ""), "no site named 'imu' (put it at the pelvis origin)"),
    "first joint not free": (('<freejoint name="root"/>', NOT_FREE),
                             "the first joint must be a free joint on the body 'pelvis' (the root); found a slide "
                             "joint 'root_x' on body 'pelvis'"),
    "a body geom collides": ((PELVIS, PELVIS.replace("type=", 'contype="1" type=')),
                             "geom 'pelvis' of body 'pelvis' collides (contype/conaffinity nonzero); only geoms of "
                             "foot bodies (name containing 'foot' or 'toe') may, every other geom needs "
                             "contype=conaffinity=0"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_broken_model_is_one_line(case, tmp_path):
    replacement, message = BROKEN[case]
    path = broken_model(tmp_path, replacement)
    expect_error(f"{path}: {message}", "trex_stage1", {"model": path})


@pytest.mark.parametrize("case", BROKEN)
def test_broken_model_from_the_command_line_exits_2(case, tmp_path, capsys):
    replacement, message = BROKEN[case]
    path = broken_model(tmp_path, replacement)
    with pytest.raises(SystemExit) as exit:
        cli.main(["--env", "trex_stage1", "--set", f"model={path}", "--out", str(tmp_path / "run")])
    assert exit.value.code == 2
    assert capsys.readouterr().err == f"error: {path}: {message}\n"
    assert not (tmp_path / "run").exists()


def heights_of(name):
    return {k: configs.CONFIGS[name][k] for k in ("standing_height", "min_pelvis_height", "min_head_height")}


def test_velociraptor_heights_on_trex():
    expect_error(f"trex.xml: standing_height 0.42 m must be between 80% and 100% of the home pelvis height 0.898 m; "
                 f"{HEIGHTS}", "trex_stage1", heights_of("velociraptor_stage1"))


def test_trex_heights_on_velociraptor():
    expect_error(f"velociraptor.xml: standing_height 0.8 m must be between 80% and 100% of the home pelvis height "
                 f"0.502 m; {HEIGHTS}", "velociraptor_stage1", heights_of("trex_stage1"))


def test_brachiosaurus_min_head_height_on_trex():
    expect_error(f"trex.xml: min_head_height 1.2 m must be between 30% and 100% of the home head height 1.108 m; "
                 f"{HEIGHTS}", "trex_stage1", {"min_head_height": 1.2})


def test_velociraptor_min_pelvis_height_on_trex():
    expect_error(f"trex.xml: min_pelvis_height 0.3 m must be at least 50% of the home pelvis height 0.898 m and below "
                 f"standing_height 0.8 m; {HEIGHTS}", "trex_stage1", {"min_pelvis_height": 0.3})


def test_env_from_config_checks_before_compiling(tmp_path):
    """Building the env runs the checks before anything is put on a device or compiled."""
    path = broken_model(tmp_path, ('<key name="home"', '<key name="rest"'))
    compiled = []

    def listener(event, duration, fun_name="", **kwargs):
        if event == "/jax/core/compile/backend_compile_duration":
            compiled.append(fun_name)

    jax.monitoring.register_event_duration_secs_listener(listener)
    try:
        with pytest.raises(ConfigError, match=f"^{re.escape(path)}: no keyframe named 'home'$"):
            envs.env_from_config("trex_stage1", configs.get_config("trex_stage1", {"model": path}))
    finally:
        jax.monitoring.unregister_event_duration_listener(listener)
    assert compiled == []


def test_physics_settings_reach_the_model():
    """The config's timestep and solver iterations replace the MJCF's (a policy exported before the iterations were a
    setting keeps the MJCF's 2); zero iterations is one ConfigError line."""
    model = tasks.load_model(configs.get_config("trex_stage2", {"sim_dt": 0.005, "solver_iterations": 1}))
    assert (model.opt.timestep, model.opt.iterations) == (0.005, 1)
    exported_before = {k: v for k, v in configs.get_config("trex_stage2").items() if k != "solver_iterations"}
    assert tasks.load_model(exported_before).opt.iterations == 2
    with pytest.raises(ConfigError, match="^solver_iterations = 0 is not a whole number of at least 1$"):
        tasks.load_model(configs.get_config("trex_stage2", {"solver_iterations": 0}))
