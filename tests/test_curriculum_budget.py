"""benchmarks/curriculum_budget.py reads each curriculum's timing from its run folder and console, and refuses what
is no timing."""

import json
import os

import pytest

from benchmarks import curriculum_budget

MACHINE = dict(backend="cpu", cpu="Test CPU", cpu_count=2, versions=dict(jax="0.9.2", mujoco="3.17.0"))


def fake_curriculum(parent, species, wall_s, train_wall_s, sessions=1):
    folder = os.path.join(parent, f"{species}_curriculum_cpu_seed0")
    os.makedirs(folder)
    stages = [dict(stage=f"{species}_stage{n + 1}", env_steps=1_000_000 * (n + 1), train_wall_s=t,
                   gate_passed=n != 1) for n, t in enumerate(train_wall_s)]
    record = dict(sessions=[dict(machine=MACHINE, wall_s=wall_s)] * sessions, stages=stages)
    with open(os.path.join(folder, "curriculum.json"), "w") as f:
        json.dump(record, f)
    with open(os.path.join(parent, f"{species}.console.log"), "w") as f:
        f.write("compiling the training program\ncompiled in 101s\nupdate 4/976\ncompiled in 99s\ncompiled in 7s\n")


def test_the_report_holds_each_curriculums_wall_time_updates_compiles_and_verdict(tmp_path):
    walls = dict(trex=7000.0, velociraptor=7300.0, brachiosaurus=5000.0)
    for species, wall in walls.items():
        fake_curriculum(str(tmp_path), species, wall, (1000.0, 2000.0, 1500.0))
    out = tmp_path / "budget.json"
    curriculum_budget.main(["--summarize", str(tmp_path), "--out", str(out)])
    report = json.loads(out.read_text())
    rows = {r["species"]: r for r in report["curricula"]}
    assert report["budget_s"] == 7200
    assert [rows[s]["within_budget"] for s in walls] == [True, False, True]
    assert rows["trex"]["outside_updates_s"] == 7000.0 - 4500.0
    assert rows["velociraptor"]["compiled_s"] == [101, 99, 7]
    assert [s["env_steps"] for s in rows["brachiosaurus"]["stages"]] == [1_000_000, 2_000_000, 3_000_000]
    table = (tmp_path / "budget.md").read_text()
    assert "| velociraptor | 121.7 | no | 16.7, 33.3, 25.0 | 1.00M, 2.00M (cap), 3.00M | 46.7 | 101, 99, 7 |" in table


def test_a_resumed_curriculum_or_a_missing_one_is_one_line_and_exit_code_2(tmp_path, capsys):
    fake_curriculum(str(tmp_path), "trex", 7000.0, (1000.0, 2000.0, 1500.0), sessions=2)
    with pytest.raises(SystemExit) as e:
        curriculum_budget.main(["--summarize", str(tmp_path), "--out", str(tmp_path / "budget.json")])
    assert e.value.code == 2 and "not one whole run (2 sessions" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        curriculum_budget.main(["--summarize", str(tmp_path / "nothing"), "--out", str(tmp_path / "budget.json")])
    assert e.value.code == 2 and "no finished curriculum of trex" in capsys.readouterr().err
    assert not (tmp_path / "budget.json").exists()


def test_a_timing_refuses_a_parent_that_holds_a_curriculum_before_it_starts_any(tmp_path, capsys, monkeypatch):
    os.makedirs(tmp_path / "velociraptor_curriculum_cpu_seed0")
    monkeypatch.setattr(curriculum_budget.subprocess, "Popen", lambda *a, **k: pytest.fail("a training started"))
    with pytest.raises(SystemExit) as e:
        curriculum_budget.main(["--parent", str(tmp_path), "--out", str(tmp_path / "budget.json")])
    assert e.value.code == 2 and "velociraptor_curriculum_cpu_seed0 exists" in capsys.readouterr().err
