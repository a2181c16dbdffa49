"""benchmarks/push_ranges.py: bad overrides are one line and exit code 2 before anything compiles, and a candidates
file keeps what earlier commands judged."""

import json

import pytest

from benchmarks import push_ranges


@pytest.mark.parametrize("argv, message", [
    (["--candidate", "velociraptor:0.25-0.6:40-60", "--set", "bogus=1"], "error: unknown config key 'bogus'"),
    (["--set", "action_scale=0.75"], "error: --set needs --candidate"),
])
def test_bad_overrides_give_one_line_and_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exit:
        push_ranges.main(argv)
    assert exit.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)


def row(speeds, noise):
    return dict(species="trex", push_speed=speeds, push_interval=[40, 60], zero=0.0, noise=noise)


def test_a_candidates_file_keeps_the_rows_a_later_command_does_not_judge_again(tmp_path):
    path = tmp_path / "push_ranges_candidates_cpu.json"
    path.write_text(json.dumps(dict(command="first", ranges=[row([0.2, 0.4], 0.5), row([0.3, 0.6], 0.1)])))
    again = dict(row((0.3, 0.6), 0.2), command="second")
    new = dict(row((0.4, 0.8), 0.0), command="second")
    assert push_ranges.with_earlier_rows(str(path), [again, new]) == [
        dict(row([0.2, 0.4], 0.5), command="first"), again, new]
    assert push_ranges.with_earlier_rows(str(tmp_path / "none.json"), [new]) == [new]
