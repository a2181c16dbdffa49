"""benchmarks/curriculum_budget.py reads each curriculum's timing from its run folder and console, refuses what is no
timing, and projects the recorded timing onto a machine's speed from a few minutes of training."""

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


def progress(updates, rate, first=4):
    return "".join(f"update {u}/976  steps {u * 5120:,}  {rate:,} steps/s  ETA 100s  return 1.0  length 50.0  kl 0.01\n"
                   for u in range(first, updates + 1, 4))


RECORDED = dict(machine=MACHINE, curricula=[
    dict(species=species, wall_s=6000.0, stages=[dict(env_steps=3_000_000, train_wall_s=1500.0)])
    for species in ("trex", "velociraptor", "brachiosaurus")])  # stage 1 at 2,000 env steps/s


def test_a_projection_scales_the_recorded_run_by_the_stage1_speed_past_the_warmup(tmp_path):
    consoles = dict(trex=progress(32, 9_999) + progress(80, 1_200, first=36),  # warm-up lines left out
                    velociraptor=progress(60, 2_500) + "curriculum velociraptor: stage 2/3\n" + progress(20, 9_999),
                    brachiosaurus=progress(48, 1_000))
    for species, console in consoles.items():
        (tmp_path / f"{species}.console.log").write_text(console)
    rows = {r["species"]: r for r in curriculum_budget.projection(str(tmp_path), RECORDED)}
    assert rows["trex"]["env_steps_per_s"] == 1_200 and rows["trex"]["speed"] == 0.6
    assert rows["trex"]["projected_wall_s"] == 10_000.0 and not rows["trex"]["within_budget"]
    assert rows["velociraptor"]["speed"] == 1.25 and rows["velociraptor"]["projected_wall_s"] == 4_800.0
    assert rows["velociraptor"]["within_budget"]
    assert rows["brachiosaurus"]["speed"] == 0.5


class FakeTraining:
    """A curriculum that prints stage-1 progress and runs until it is sent Ctrl-C."""

    started = []

    def __init__(self, args, stdout, **kwargs):
        stdout.write(progress(80, 1_500))
        self.signals, self.session = [], kwargs.get("start_new_session")
        FakeTraining.started.append(self)

    def poll(self):
        return 130 if self.signals else None

    def wait(self, timeout=None):
        if not self.signals and timeout is not None:
            raise curriculum_budget.subprocess.TimeoutExpired("ppo_mjx.py", timeout)
        return 130

    def send_signal(self, signum):
        self.signals.append(signum)


def test_a_projection_stops_each_training_once_with_ctrl_c_and_writes_its_record(tmp_path, monkeypatch, capsys):
    recorded = tmp_path / "recorded.json"
    recorded.write_text(json.dumps(RECORDED))
    monkeypatch.setattr(FakeTraining, "started", [])
    monkeypatch.setattr(curriculum_budget, "report_path", lambda backend: str(recorded))
    monkeypatch.setattr(curriculum_budget.subprocess, "Popen", FakeTraining)
    out = tmp_path / "projection.json"
    curriculum_budget.main(["--projection", "0.001", "--parent", str(tmp_path / "runs"), "--out", str(out)])
    assert [t.signals for t in FakeTraining.started] == [[curriculum_budget.signal.SIGINT]] * 3
    assert all(t.session for t in FakeTraining.started)
    report = json.loads(out.read_text())
    assert [r["speed"] for r in report["curricula"]] == [0.75] * 3 and report["recorded"] == "Test CPU"
    assert "trex: 1,500 env steps/s in stage 1 against 2,000 recorded (0.75x)" in capsys.readouterr().out


def test_a_projection_without_a_recorded_timing_or_minutes_is_one_line_and_exit_code_2(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(curriculum_budget, "report_path", lambda backend: str(tmp_path / "none.json"))
    monkeypatch.setattr(curriculum_budget.subprocess, "Popen", lambda *a, **k: pytest.fail("a training started"))
    for minutes, message in (("10", "no recorded timing to project from"), ("0", "--projection 0: minutes above 0")):
        with pytest.raises(SystemExit) as e:
            curriculum_budget.main(["--projection", minutes, "--parent", str(tmp_path / "runs")])
        assert e.value.code == 2 and message in capsys.readouterr().err


class CrashedTraining(FakeTraining):
    """A curriculum that prints stage-1 progress and then fails on its own."""

    def poll(self):
        return 1

    def wait(self, timeout=None):
        return 1


def test_a_projection_reports_a_training_that_failed_before_its_stop_as_one_line_and_exit_code_2(tmp_path, monkeypatch,
                                                                                                capsys):
    recorded = tmp_path / "recorded.json"
    recorded.write_text(json.dumps(RECORDED))
    monkeypatch.setattr(curriculum_budget, "report_path", lambda backend: str(recorded))
    monkeypatch.setattr(FakeTraining, "started", [])
    monkeypatch.setattr(curriculum_budget.subprocess, "Popen", CrashedTraining)
    with pytest.raises(SystemExit) as e:
        curriculum_budget.main(["--projection", "0.001", "--parent", str(tmp_path / "runs"),
                                "--out", str(tmp_path / "projection.json")])
    assert e.value.code == 2 and "training failed for trex, velociraptor, brachiosaurus" in capsys.readouterr().err
    assert not (tmp_path / "projection.json").exists()
