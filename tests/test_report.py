"""benchmarks/report.py's bookkeeping: pieces chosen, run each in its own process, skipped once done, packed to
bring back, and the targets judged on the figures they name. The measuring pieces are the benchmarks' (untimed
here); throughput.py refuses a malformed setting to time against."""

import json
import tarfile

import jax
import pytest

from benchmarks import report, robustness, throughput


def test_targets_are_judged_on_the_figures_they_name():
    pieces = {"throughput:trex:4096": dict(ratio_train_over_raw=0.79),
              "throughput:trex:8192": dict(ppo_train_steps_per_s=1.2e6),
              "seeds:16": dict(time_all_seeds_over_one_seed=4.0)}
    stages = [dict(train_wall_s=60.0 * minutes) for minutes in (3, 9.9, 10.5)]
    curricula = {species: ("folder", dict(stages=stages)) for species in report.SPECIES}
    lines = report.targets("gpu", pieces, curricula)
    assert lines == ["- train/raw >= 0.8 at 4096 envs (T-Rex): 0.79, NOT met",
                     "- T-Rex stage 1 >= 1M env steps/s at 8192 envs: 1,200,000.00, met",
                     "- 16 seeds vmapped <= 4x one seed's time: 4.00, met",
                     "- every curriculum stage's gate within 10 min of training (longest stage, min): 10.50, NOT met"]
    unfinished = {"trex": ("folder", dict(stages=stages[:2]))}
    assert report.targets("gpu", {}, unfinished)[-1].endswith("not measured")


def test_unknown_pieces_give_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exit:
        report.main(["--pieces", "thruput"])
    assert exit.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: no piece matches --pieces thruput; pieces: throughput:trex:")


def test_throughput_against_a_malformed_setting_gives_one_line_and_exit_2(capsys):
    for versus, message in (("sim_dt", "error: override 'sim_dt' is not KEY=VALUE"),
                            ("sim_dt=0.005,solver_iterations=one", "error: config key 'solver_iterations' expects int")):
        with pytest.raises(SystemExit) as exit:
            throughput.main(["--env", "trex_stage2", "--versus", versus])
        assert exit.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(message), err


@pytest.mark.skipif(jax.default_backend() == "gpu", reason="on a GPU these pieces measure for minutes")
def test_pieces_run_in_their_own_processes_once_and_the_report_collects_them(tmp_path, capsys):
    args = ["--pieces", "xla_flag,mjx_impl:warp", "--out", str(tmp_path)]
    report.main(args)
    unfinished = tmp_path / "trex_curriculum_cpu_seed0" / "trex_stage1"
    unfinished.mkdir(parents=True)
    (unfinished / "checkpoint.msgpack").write_bytes(b"a train state: stays behind")
    (unfinished / "metrics.csv").write_text("update\n1\n")
    report.main([*args, "--pack", str(tmp_path / "report.tar.gz")])  # all asked for is done: this call runs nothing
    with tarfile.open(tmp_path / "report.tar.gz") as tar:
        packed = set(tar.getnames())
    top = tmp_path.name
    assert {f"{top}/report.md", f"{top}/trex_curriculum_cpu_seed0/trex_stage1/metrics.csv"} <= packed
    assert f"{top}/trex_curriculum_cpu_seed0/trex_stage1/checkpoint.msgpack" not in packed
    saved = json.loads((tmp_path / "report.json").read_text())
    assert [[p["piece"] for p in call["pieces"]] for call in saved["calls"]] == [
        ["xla_flag:triton_gemm_any", "mjx_impl:warp"], []]
    assert saved["pieces"]["mjx_impl:warp"]["skipped"].startswith("mjx_impl 'warp' needs an NVIDIA GPU")
    markdown = (tmp_path / "report.md").read_text()
    assert "| xla_flag:triton_gemm_any | - | not run: --xla_gpu_triton_gemm_any=true is a flag of XLA's GPU" in markdown
    report.main(["--list", *args])
    assert capsys.readouterr().out.endswith("done  xla_flag:triton_gemm_any\ndone  mjx_impl:warp\n")


def test_robustness_names_every_bound_of_a_gate_with_its_stress_test():
    """The gate column of results/robustness_gates.md: the gate's bounds, then its stress test's, with its settings."""
    gate = dict(min=dict(success_rate=0.95), max=dict(lin_vel_error_mean=0.25),
                stress=dict(settings={"push_speed": 0.9}, min=dict(success_rate=0.8)))
    assert robustness.gate_bounds(gate) == {"success_rate": ">= 0.95", "lin_vel_error_mean": "<= 0.25",
                                            "success_rate (stress: push_speed=0.9)": ">= 0.8"}
    assert robustness.gate_bounds(dict(min=dict(success_rate=0.95))) == {"success_rate": ">= 0.95"}
