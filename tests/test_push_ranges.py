"""analysis/push_ranges.py: bad candidates and overrides are one line and exit code 2 before anything compiles, a
species alone stands for its configured range, and a candidates file keeps what earlier commands judged."""

import json

import pytest

from analysis import push_ranges
from configs import get_config


@pytest.mark.parametrize("argv, message", [
    (["--candidate", "velociraptor:0.25-0.6:40-60", "--set", "bogus=1"], "error: unknown config key 'bogus'"),
    (["--candidate", "dodo:0.2-0.4:40-60"], "error: unknown env 'dodo_stage1'"),
])
def test_bad_candidates_give_one_line_and_exit_2(capsys, argv, message):
    with pytest.raises(SystemExit) as exit:
        push_ranges.main(argv)
    assert exit.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)


def test_a_species_alone_is_its_configured_range_and_a_given_range_is_kept():
    config = get_config("brachiosaurus_stage1")
    assert push_ranges.configured([push_ranges.candidate("brachiosaurus"),
                                   push_ranges.candidate("trex:0.3-0.6:25-40")], {}) == [
        ("brachiosaurus", tuple(config["push_speed"]), tuple(config["push_interval"])),
        ("trex", (0.3, 0.6), (25, 40))]
    with pytest.raises(Exception, match="SPECIES:LOW-HIGH:LOW-HIGH"):
        push_ranges.candidate("trex:0.3")


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
