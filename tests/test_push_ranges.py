"""benchmarks/push_ranges.py's command line: bad overrides are one line and exit code 2 before anything compiles."""

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
