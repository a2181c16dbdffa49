"""The curriculum: gate logic on synthetic metrics, gate names checked against evaluation metrics, and a two-stage
cartpole curriculum end to end (early stop on a passed gate, budget exhausted, warm start of params and
normalizer, records), killed and resumed (the same end as straight through), branched at a stage
(analysis/branch_curriculum.py) and resumed, and bad folders to resume or branch."""

import contextlib
import json
import os
import pathlib
import types

import jax
import numpy as np
import pytest

import cli
import curriculum
import envs
import evaluation
import ppo_mjx
import runs
import training
from analysis import branch_curriculum
from cartpole import SHORT_CONFIG, make_cartpole_env
from configs import CONFIGS, ConfigError
from test_cli import run_main

GATE = dict(min=dict(success_rate=0.75, episode_length=300.0), consecutive=3, eval_every=1)
GOOD = dict(success_rate=0.8, episode_length=400.0)


def decide(summaries, gate=GATE):
    decisions = []
    for summary in summaries:
        decisions.append(curriculum.gate_decision(gate, summary, decisions))
    return decisions


def test_gate_passes_after_k_passing_evaluations():
    decisions = decide([GOOD] * 3)
    assert [d["consecutive"] for d in decisions] == [1, 2, 3]
    assert [d["gate_passed"] for d in decisions] == [False, False, True]
    assert decide([GOOD], dict(GATE, consecutive=1))[0]["gate_passed"]


def test_gate_fails_when_any_metric_is_below_its_threshold():
    at_threshold = dict(success_rate=0.75, episode_length=300.0)
    assert decide([at_threshold])[0]["passed"]
    for bad in [dict(GOOD, success_rate=0.74), dict(GOOD, episode_length=299.0), dict(GOOD, success_rate=np.nan)]:
        decisions = decide([bad] * 5)
        assert not any(d["passed"] or d["gate_passed"] for d in decisions)
        assert [d["consecutive"] for d in decisions] == [0] * 5


def test_gate_needs_k_consecutive_passes():
    bad = dict(GOOD, success_rate=0.1)
    decisions = decide([GOOD, GOOD, bad, GOOD, GOOD, GOOD])
    assert [d["consecutive"] for d in decisions] == [1, 2, 0, 1, 2, 3]
    assert [d["gate_passed"] for d in decisions] == [False] * 5 + [True]
    assert decisions[2]["metrics"] == dict(success_rate=0.1, episode_length=400.0)


STRESS = dict(settings=dict(episode_length=5), min=dict(success_rate=0.5))
STRESSED = dict(GATE, stress=STRESS)


def test_a_stress_test_must_pass_too():
    """With a stress test, an evaluation passes only when the stress evaluation (None: not run) meets its bounds."""
    decisions = [curriculum.gate_decision(STRESSED, GOOD, [], stress) for stress in (GOOD, dict(success_rate=0.4), None)]
    assert [d["passed"] for d in decisions] == [True, False, False]
    assert [d["stress_metrics"] for d in decisions] == [dict(success_rate=0.8), dict(success_rate=0.4), None]
    assert decisions[0]["metrics"] == GOOD
    assert "stress_metrics" not in curriculum.gate_decision(GATE, GOOD, [])


def test_a_gate_runs_its_stress_test_only_on_a_policy_that_passes(tmp_path):
    """The stress env is evaluated after a passing evaluation only; three passes of both in a row pass the gate."""
    stress_env = object()
    main = iter([dict(GOOD, success_rate=0.1), GOOD, GOOD, GOOD, GOOD])
    stressed = iter([dict(success_rate=0.2), dict(success_rate=0.9), dict(success_rate=0.9), dict(success_rate=0.9)])
    calls = []

    def evaluate(env=None):
        calls.append("stress" if env is stress_env else "main")
        return (next(stressed) if env is stress_env else next(main)), None

    after_chunk, outcome = curriculum.make_gate(STRESSED, tmp_path / "gate.json", stress=stress_env)
    for update in range(1, 6):
        if after_chunk(types.SimpleNamespace(update=update, env_steps=update, wall_s=0.0, evaluate=evaluate)):
            break
    assert update == 5 and outcome()["passed"] and outcome()["stress"] == STRESS
    assert calls == ["main", "main", "stress", "main", "stress", "main", "stress", "main", "stress"]
    decisions = json.loads((tmp_path / "gate.json").read_text())["decisions"]
    assert [d["consecutive"] for d in decisions] == [0, 0, 1, 2, 3]
    assert [d["stress_metrics"] for d in decisions] == [None] + [dict(success_rate=s) for s in (0.2, 0.9, 0.9, 0.9)]


def cartpole_env(name, config, physics="mjx"):
    """Stands in for envs.env_from_config, so that cartpole stages can make a curriculum."""
    return make_cartpole_env(config, name)


def test_gate_naming_an_unknown_metric_is_refused():
    env = cartpole_env("cartpole", SHORT_CONFIG)
    names = evaluation.evaluation_metric_names(env)
    assert {"episode_return", "episode_length", "reached_time_limit", "pole_angle", "pole_angle_mean"} <= set(names)
    curriculum.check_gate(dict(min=dict(pole_angle_mean=0.0), consecutive=1, eval_every=1), env)
    with pytest.raises(ConfigError, match="the gate names sucess_rate, which its evaluation does not report"):
        curriculum.check_gate(dict(min=dict(sucess_rate=0.5), consecutive=1, eval_every=1), env)
    with pytest.raises(ConfigError, match="the gate names pole, which its evaluation does not report"):
        curriculum.check_gate(dict(GATE, min=dict(pole_angle_mean=0.0), stress=dict(settings={}, min=dict(pole=1))), env)
    with pytest.raises(ConfigError, match="gate min_env_steps must be at least 0"):
        curriculum.check_gate(dict(min=dict(pole_angle_mean=0.0), consecutive=1, eval_every=1, min_env_steps=-1), env)


def test_a_gate_evaluates_nothing_before_its_min_env_steps(tmp_path):
    """From `min_env_steps` on, every `eval_every` updates, as a gate without it does from the start."""
    after_chunk, outcome = curriculum.make_gate(dict(GATE, eval_every=2, min_env_steps=500), tmp_path / "gate.json")
    evaluated = []
    for update in range(1, 20):
        progress = types.SimpleNamespace(update=update, env_steps=100 * update, wall_s=0.0,
                                         evaluate=lambda: (evaluated.append(update) or GOOD, None))
        if after_chunk(progress):
            break
    assert evaluated == [5, 7, 9] and update == 9
    assert outcome()["passed"] and outcome()["evaluations"] == 3
    assert [d["env_steps"] for d in json.loads((tmp_path / "gate.json").read_text())["decisions"]] == [500, 700, 900]


# Stage 1 passes its gate at its second evaluation (update 4 of 6); stage 2 cannot pass and learns nothing (lr 0), so
# its final params are stage 1's, but for the log std that the warm start resets.
# A checkpoint after every update, so that a killed curriculum loses only the update under way.
STAGES = [
    dict(SHORT_CONFIG, checkpoint_every=1, gate=dict(min=dict(episode_length=1.0), consecutive=2, eval_every=2)),
    dict(SHORT_CONFIG, checkpoint_every=1, lr=0.0, warm_start_log_std=-2.0,
         gate=dict(min=dict(episode_return=1e9), consecutive=1, eval_every=3)),
]


@contextlib.contextmanager
def cartpole_stages():
    """The STAGES as the 'cartpole' curriculum."""
    with pytest.MonkeyPatch.context() as patch:
        for i, config in enumerate(STAGES, start=1):
            patch.setitem(CONFIGS, f"cartpole_stage{i}", config)
        patch.setattr(envs, "env_from_config", cartpole_env)
        yield patch


@pytest.fixture(scope="module")
def cartpole_curriculum(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("curriculum"))
    with cartpole_stages():
        records = curriculum.run_curriculum("cartpole", 0, out)
    return out, records


def test_curriculum_stops_a_stage_at_its_gate_or_its_budget(cartpole_curriculum):
    out, records = cartpole_curriculum
    batch = SHORT_CONFIG["num_envs"] * SHORT_CONFIG["num_steps"]
    assert [r["stage"] for r in records] == ["cartpole_stage1", "cartpole_stage2"]
    assert [r["gate_passed"] for r in records] == [True, False]
    assert [r["env_steps"] for r in records] == [4 * batch, 6 * batch]
    saved = json.load(open(os.path.join(out, "curriculum.json")))
    assert saved["stages"] == json.loads(json.dumps(records))
    assert "| cartpole_stage1 | 8,192 |" in open(os.path.join(out, "curriculum.md")).read()
    for stage, updates, evaluations in [("cartpole_stage1", 4, [2, 4]), ("cartpole_stage2", 6, [3, 6])]:
        gate = json.load(open(os.path.join(out, stage, "gate.json")))
        assert [d["update"] for d in gate["decisions"]] == evaluations
        assert len(open(os.path.join(out, stage, "metrics.csv")).read().splitlines()) == updates + 1
        assert json.load(open(os.path.join(out, stage, "eval.json")))["gate"]["evaluations"] == len(evaluations)


def test_warm_start_carries_params_and_normalizer(cartpole_curriculum):
    out, _ = cartpole_curriculum
    env = cartpole_env("cartpole", SHORT_CONFIG)

    def final_policy(stage):
        path = os.path.join(out, stage, runs.CHECKPOINT)
        return training.load_policy(path, runs.read_checkpoint(path), SHORT_CONFIG, env)

    first, second = final_policy("cartpole_stage1"), final_policy("cartpole_stage2")
    first_params, second_params = first["params"]["params"], second["params"]["params"]
    np.testing.assert_array_equal(second_params["log_std"], np.full(env.action_size, -2.0))
    for name in first_params:
        if name != "log_std":
            jax.tree.map(np.testing.assert_array_equal, first_params[name], second_params[name])
    batch = SHORT_CONFIG["num_envs"] * SHORT_CONFIG["num_steps"]
    assert float(second["normalizer"].count) == float(first["normalizer"].count) + 6 * batch  # continued, not anew
    hparams = ppo_mjx.hyperparameters(SHORT_CONFIG, env.default_params)
    fresh = ppo_mjx.make_trainer(SHORT_CONFIG, env).init(jax.random.key(0), hparams)
    assert not np.allclose(fresh.train_state.params["params"]["Dense_0"]["kernel"], first_params["Dense_0"]["kernel"])


def test_a_stage_whose_critic_observes_otherwise_warm_starts_the_actor_alone(cartpole_curriculum):
    """A stage whose critic reads an observation of another width (a privileged critic in one stage and not the
    other) starts from the last stage's actor, log std and normalizer, and from a fresh run's critic; a stage whose
    critic reads the same width starts from the whole policy, as before."""
    out, _ = cartpole_curriculum
    env = cartpole_env("cartpole", SHORT_CONFIG)
    privileged = types.SimpleNamespace(**(vars(env) | dict(critic_observation_size=env.observation_size + 3)))
    path = os.path.join(out, "cartpole_stage1", runs.CHECKPOINT)
    checkpoint = runs.read_checkpoint(path)
    whole = training.load_policy(path, checkpoint, SHORT_CONFIG, env)
    jax.tree.map(np.testing.assert_array_equal, training.load_warm_start(path, checkpoint, SHORT_CONFIG, env), whole)
    actor = training.load_warm_start(path, checkpoint, SHORT_CONFIG, privileged)
    critic = training.critic_layers(SHORT_CONFIG)
    assert critic == ["Dense_3", "Dense_4", "Dense_5"]  # two hidden layers and the mean before them
    assert set(whole["params"]["params"]) - set(actor["params"]["params"]) == set(critic)
    without_critic = {k: v for k, v in whole["params"]["params"].items() if k not in critic}
    jax.tree.map(np.testing.assert_array_equal, actor, dict(whole, params={"params": without_critic}))
    network = ppo_mjx.make_network(SHORT_CONFIG, env.action_size)
    fresh = network.init(jax.random.key(1), np.zeros(env.observation_size, np.float32),
                         np.zeros(privileged.critic_observation_size, np.float32))
    started = training.warm_params(fresh, actor["params"])
    assert started["params"]["Dense_3"]["kernel"].shape == (privileged.critic_observation_size,
                                                            SHORT_CONFIG["critic_hidden"][0])
    for name in started["params"]:
        jax.tree.map(np.testing.assert_array_equal, started["params"][name],
                     (fresh if name in critic else whole["params"])["params"][name])


def test_gates_evaluate_episodes_of_their_own_and_the_final_evaluation_the_same_ones():
    """A gate's evaluation at update u draws its own episodes, so passes in a row are independent samples; the final
    evaluation (draw 0) plays the episodes of jax.random.key(seed + 1_000_000) at every call, as it always did."""
    env = cartpole_env("cartpole", SHORT_CONFIG)
    spec = runs.RunSpec("cartpole", SHORT_CONFIG, 3, None, {})
    trainer = ppo_mjx.make_trainer(SHORT_CONFIG, env)
    setup = training.prepare(env, [spec], None, trainer, jax.devices()[:1])
    runner = training.init_runs(trainer, [spec], setup.hparams, setup.layout, setup.program_key)
    final, again, gate_2, gate_4 = (setup.evaluate(runner, draw)[0] for draw in (0, 0, 2, 4))
    assert final == again and setup.evaluate(runner, 2)[0] == gate_2
    assert len({final["episode_return"], gate_2["episode_return"], gate_4["episode_return"]}) == 3
    params, normalizer = (jax.tree.map(lambda x: x[0], tree) for tree in (runner.train_state.params, runner.normalizer))
    policy = ppo_mjx.evaluation_policy(SHORT_CONFIG, env.action_size, params, normalizer, mean=True)
    key = jax.random.key(3 + 1_000_000)
    episodes, _ = evaluation.evaluation_rollout(env, policy, key, SHORT_CONFIG["eval_episodes"])
    assert evaluation.evaluation_summary(env, episodes)["episode_return"] == pytest.approx(final["episode_return"])
    # in another env (a gate's stress test): that env's episodes, 5 steps long
    short_config = dict(SHORT_CONFIG, episode_length=5)
    short = setup.evaluate_in(cartpole_env("cartpole", short_config))(runner, 2)[0]
    episodes, _ = evaluation.evaluation_rollout(cartpole_env("cartpole", short_config), policy,
                                                jax.random.fold_in(key, 2), SHORT_CONFIG["eval_episodes"])
    assert short["episode_length"] == 5.0 and short == evaluation.evaluation_summary(env, episodes) | {
        k: short[k] for k in ("episodes", "actions", "physics", "backend", "device")}


def test_a_stage_with_a_stress_test_gets_its_env_with_the_settings_applied():
    with cartpole_stages() as patch:
        stress = dict(settings=dict(episode_length=5), min=dict(episode_length=5.0))
        patch.setitem(CONFIGS, "cartpole_stage1", dict(STAGES[0], gate=dict(STAGES[0]["gate"], stress=stress)))
        names, configs = curriculum.stage_configs("cartpole", {})
        stage_envs, stress_envs = curriculum.curriculum_envs(names, configs)
    assert stress_envs[1] is None and stress_envs[0].name == "cartpole_stage1"
    assert stress_envs[0].config == dict(configs[0], episode_length=5) and stage_envs[0].config == configs[0]


def test_cli_refuses_a_gate_on_an_unknown_metric_before_training(tmp_path, capsys):
    out = tmp_path / "curriculum"
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(CONFIGS, "cartpole_stage1", STAGES[0])
        patch.setitem(CONFIGS, "cartpole_stage2", dict(STAGES[1], gate=dict(min=dict(speed=1.0), consecutive=1,
                                                                            eval_every=1)))
        patch.setattr(envs, "env_from_config", cartpole_env)
        with pytest.raises(SystemExit) as exit:
            cli.main(["--env", "cartpole", "--curriculum", "--out", str(out)])
    assert exit.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "env 'cartpole_stage2': the gate names speed, which its evaluation does not report" \
        in lines[0]
    assert not out.exists()  # refused before anything was trained or written


class Killed(Exception):
    """Stands in for the end of a session: the process stops without writing anything more."""


def stage_files(out, stage):
    """A finished stage's outcome, without wall times: its gate decisions, metrics rows and final runner."""
    path = os.path.join(out, stage, runs.CHECKPOINT)
    checkpoint = runs.read_checkpoint(path)
    decisions = json.load(open(os.path.join(out, stage, "gate.json")))["decisions"]
    untimed = lambda rows: [{k: v for k, v in r.items() if k not in ("wall_s", "steps_per_s")} for r in rows]
    return untimed(decisions), untimed(checkpoint["rows"]), checkpoint["runner"]


def killing_gates(kills):
    """curriculum.make_gate whose gate raises Killed right after deciding at (stage, update) in `kills`, before the
    checkpoint of that update; each kill happens once."""
    make_gate = curriculum.make_gate
    pending = set(kills)

    def killing_gate(gate, path, previous=(), stress=None):
        after_chunk, outcome = make_gate(gate, path, previous, stress)

        def killing_after_chunk(progress):
            ended = after_chunk(progress)
            kill = (os.path.basename(os.path.dirname(path)), progress.update)
            if kill in pending:
                pending.remove(kill)
                raise Killed
            return ended

        return killing_after_chunk, outcome

    return killing_gate


def test_a_killed_and_resumed_curriculum_ends_as_an_uninterrupted_one(cartpole_curriculum, tmp_path, capsys):
    """Killed right after a gate decision and before its checkpoint, once in each stage (stage 1: the decision that
    passes the gate), each time resumed from the folder alone: the decision is made again and everything ends as
    straight through."""
    straight, records = cartpole_curriculum
    out = str(tmp_path / "curriculum")
    kills = [("cartpole_stage1", 4), ("cartpole_stage2", 3)]

    def assert_killed_after_deciding(stage, update):
        gate = json.load(open(os.path.join(out, stage, "gate.json")))["decisions"]
        assert gate[-1]["update"] == update and runs.read_checkpoint(
            os.path.join(out, stage, runs.CHECKPOINT))["update"] == update - 1  # the decision outlived its checkpoint

    with cartpole_stages() as patch:
        patch.setattr(curriculum, "make_gate", killing_gates(kills))
        with pytest.raises(Killed):
            curriculum.run_curriculum("cartpole", 0, out)
        assert_killed_after_deciding(*kills[0])
        capsys.readouterr()
        with pytest.raises(Killed):
            cli.main(["--resume", out])  # resumed in stage 1, killed again in stage 2
        assert "from update 3" in capsys.readouterr().out
        assert_killed_after_deciding(*kills[1])
        code, stdout, err = run_main(cli.main, ["--resume", out], capsys)
    assert code == 0, err
    assert "from update 2" in stdout
    saved = json.load(open(os.path.join(out, "curriculum.json")))
    timeless = lambda r: {k: v for k, v in r.items() if k not in ("train_wall_s", "machine")}
    assert [timeless(r) for r in saved["stages"]] == [timeless(r) for r in json.loads(json.dumps(records))]
    assert [(s["from_stage"], s["from_update"]) for s in saved["sessions"]] == [
        ("cartpole_stage1", None), *((stage, killed_at - 1) for stage, killed_at in kills)]
    for name in ["cartpole_stage1", "cartpole_stage2"]:
        resumed, uninterrupted = stage_files(out, name), stage_files(straight, name)
        assert resumed[:2] == uninterrupted[:2]
        jax.tree.map(np.testing.assert_array_equal, resumed[2], uninterrupted[2])


def folder_bytes(folder):
    return {path: path.read_bytes() for path in sorted(pathlib.Path(folder).rglob("*")) if path.is_file()}


@pytest.mark.parametrize("args, message", [
    (["--env", "cartpole", "--curriculum", "--resume", "{run}"], "{run} is not a curriculum folder with a readable "
                                                                  "curriculum.json"),
    (["--env", "trex", "--curriculum", "--resume", "{curriculum}"], "{curriculum} is a cartpole curriculum, not trex"),
    (["--resume", "{curriculum}"], "{curriculum} has finished all 2 stages of its curriculum; nothing to resume"),
])
def test_resuming_a_wrong_folder_exits_2_and_changes_nothing(cartpole_curriculum, cartpole_straight, capsys, args,
                                                             message):
    folders = dict(run=str(cartpole_straight), curriculum=cartpole_curriculum[0])
    before = {name: folder_bytes(folder) for name, folder in folders.items()}
    with cartpole_stages():
        code, _, err = run_main(cli.main, [a.format(**folders) for a in args], capsys)
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message.format(**folders) in lines[0], err
    assert {name: folder_bytes(folder) for name, folder in folders.items()} == before


def test_a_branch_trains_the_stage_it_starts_at_with_its_settings(cartpole_curriculum, tmp_path, capsys):
    """Branched at stage 2 and resumed, stage 2 trains as the curriculum trained it (warm-started from the copied
    stage 1); with a setting added, stage 2 has it (its lr 0 keeps the warm start's log std to the end)."""
    straight, _ = cartpole_curriculum
    with cartpole_stages():
        for folder, settings in [("same", []), ("changed", ["--set", "warm_start_log_std=-3.0"])]:
            out = str(tmp_path / folder)
            assert branch_curriculum.main([straight, out, "--stage", "2", *settings]) == 0
            assert sorted(os.listdir(out)) == ["cartpole_stage1", "curriculum.json", "curriculum.md"]
            code, _, err = run_main(cli.main, ["--resume", out], capsys)
            assert code == 0, err
    resumed, uninterrupted = stage_files(tmp_path / "same", "cartpole_stage2"), stage_files(straight, "cartpole_stage2")
    assert resumed[:2] == uninterrupted[:2]
    jax.tree.map(np.testing.assert_array_equal, resumed[2], uninterrupted[2])
    changed = json.load(open(tmp_path / "changed" / "curriculum.json"))
    assert changed["overrides"] == {"warm_start_log_std": -3.0} and len(changed["stages"]) == 2
    path = str(tmp_path / "changed" / "cartpole_stage2" / runs.CHECKPOINT)
    env = cartpole_env("cartpole", SHORT_CONFIG)
    policy = training.load_policy(path, runs.read_checkpoint(path), SHORT_CONFIG, env)
    np.testing.assert_array_equal(policy["params"]["params"]["log_std"], -3.0)


@pytest.mark.parametrize("args, message", [
    (["{run}", "{out}", "--stage", "2"], "{run} is not a curriculum folder with a readable curriculum.json"),
    (["{curriculum}", "{out}", "--stage", "1"], "can branch at stages 2-2, not 1"),
    (["{curriculum}", "{out}", "--stage", "3"], "can branch at stages 2-2, not 3"),
    (["{curriculum}", "{out}", "--stage", "2", "--set", "lrr=0.1"], "no stage from cartpole_stage2 on has config "
                                                                     "key lrr"),
    (["{curriculum}", "{run}", "--stage", "2"], "{run} exists; the branch needs a new folder"),
])
def test_a_bad_branch_exits_2_and_writes_nothing(cartpole_curriculum, cartpole_straight, tmp_path, capsys, args,
                                                 message):
    folders = dict(run=str(cartpole_straight), curriculum=cartpole_curriculum[0], out=str(tmp_path / "branch"))
    before = {name: folder_bytes(folders[name]) for name in ("run", "curriculum")}
    with cartpole_stages():
        code = branch_curriculum.main([a.format(**folders) for a in args])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and message.format(**folders) in lines[0], err
    assert {name: folder_bytes(folders[name]) for name in ("run", "curriculum")} == before
    assert os.listdir(tmp_path) == []
