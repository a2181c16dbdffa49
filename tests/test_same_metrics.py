"""benchmarks/same_metrics.py --program: a change that leaves the lowered training program as it was (a comment) is
reported the same, exit code 0; a changed constant in the loss as another program, exit code 1; a setting the
checkout refuses in one line, exit code 2."""

import subprocess

import pytest

from benchmarks import same_metrics


def compare_program(capsys, root):
    with pytest.raises(SystemExit) as stopped:
        same_metrics.main(["--against", "HEAD", "--root", str(root), "--program", "--no-record"])
    return stopped.value.code, capsys.readouterr().out


def test_the_lowered_program_tells_a_comment_from_a_changed_constant(tmp_path, capsys):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", same_metrics.ROOT, str(clone)], check=True)
    trainer = clone / "ppo_mjx.py"
    source = trainer.read_text()
    trainer.write_text(source.replace("def gae_advantages(", "# a comment changes no program\ndef gae_advantages("))
    code, out = compare_program(capsys, clone)
    assert code == 0 and "lowers the same training program" in out, out
    advantage = "(batch.advantage.std() + 1e-8)"
    assert advantage in source
    trainer.write_text(source.replace(advantage, "(batch.advantage.std() + 1e-6)"))
    code, out = compare_program(capsys, clone)
    assert code == 1 and "lowers another training program" in out, out


def test_a_setting_the_checkout_refuses_is_one_line_and_exit_code_2(capsys):
    with pytest.raises(SystemExit) as stopped:
        same_metrics.main(["--against", "HEAD", "--program", "--no-record", "--both", "no_such_key=1"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert stopped.value.code == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: lowering the training program in ") and "unknown config key" in lines[0], lines
