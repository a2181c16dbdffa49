"""analysis/tracking_errors.py: its averages, masks, segments and gains against hand-made references, the split of
made-up episodes whose errors are known and what their trace figure draws, what it traces against what play.py
measures, and its command line on a committed stage-2 policy (plain MuJoCo, no JAX)."""

import json
import os

import mujoco
import numpy as np
import pytest

import play
from analysis import tracking_errors

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VELOCIRAPTOR_STAGE2 = os.path.join(ROOT, "results", "velociraptor_curriculum_cpu_seed0", "velociraptor_stage2")


def test_moving_average_is_the_centered_mean_of_what_the_window_holds():
    values = np.random.default_rng(0).normal(size=(12, 3))
    for steps in (1, 3, 4, 20):
        held = min(steps, len(values))  # an even window reaches one step further back than ahead
        expected = [values[max(0, i - held // 2):i + (held - 1) // 2 + 1].mean(axis=0) for i in range(len(values))]
        np.testing.assert_allclose(tracking_errors.moving_average(values, steps), expected, atol=1e-12)


def test_within_marks_each_flag_and_the_steps_after_it():
    flags = np.array([0, 1, 0, 0, 0, 0, 1, 0], bool)
    assert tracking_errors.within(flags, 3).tolist() == [0, 1, 1, 1, 0, 0, 1, 1]


def test_command_segments_split_where_any_component_changes():
    command = np.array([[1, 0, 0], [1, 0, 0], [1, 0, 0.5], [0, 0, 0], [0, 0, 0]])
    assert tracking_errors.command_segments(command) == [(0, 2), (2, 3), (3, 5)]


def test_fitted_gains_recover_a_known_response():
    rng = np.random.default_rng(1)
    command = rng.uniform(-1.0, 1.0, size=(20, 3))
    response = np.array([[0.9, 0.0, 0.1], [0.0, 0.5, -0.2], [0.0, -1.2, 1.3]])  # rows: moved; columns: commanded
    offset = np.array([0.05, 0.0, -0.1])
    gains = tracking_errors.fitted_gains(command, command @ response.T + offset, rng.uniform(50, 500, 20))
    assert gains["yaw_rate"]["left"] == pytest.approx(-1.2) and gains["yaw_rate"]["offset"] == pytest.approx(-0.1)
    for j, moved in enumerate(tracking_errors.AXES):
        np.testing.assert_allclose([gains[moved][axis] for axis in tracking_errors.AXES], response[j], atol=1e-9)


def made_up_episode(command_rows, wobble, bias, pushes=()):
    """Rows as traced_episode makes them: the command plus a constant `bias` (forward, left, yaw rate) plus a forward
    `wobble` that alternates in sign every step."""
    command = np.asarray(command_rows, float)
    moved = command + np.asarray(bias) + np.outer(wobble * (-1.0) ** np.arange(len(command)), [1.0, 0.0, 0.0])
    push = np.zeros(len(command))
    push[list(pushes)] = 0.5
    return np.column_stack([moved, command, push])


def test_split_tells_a_wobble_from_a_bias():
    command = [[1.0, 0.0, 0.0]] * 100 + [[0.0, 0.3, 0.5]] * 100
    wobbling = tracking_errors.split([made_up_episode(command, 0.2, [0, 0, 0], pushes=[10])], 0.02, 0.04)
    assert wobbling["per_step"]["lin_vel_error"] == pytest.approx(0.2)
    assert wobbling["window"]["lin_vel_error"] < 0.01 and wobbling["segment_mean"]["lin_vel_error"] < 0.01
    assert wobbling["after_push"]["share_of_steps"] == pytest.approx(50 / 200)  # a second at 50 Hz
    assert wobbling["after_command"]["share_of_steps"] == pytest.approx(50 / 200)
    assert wobbling["quiet"]["share_of_steps"] == pytest.approx(100 / 200)
    biased = tracking_errors.split([made_up_episode(command, 0.0, [0.0, 0.1, -0.2])], 0.02, 0.5)
    for part in ("per_step", "window", "segment_mean", "quiet"):
        assert biased[part]["lin_vel_error"] == pytest.approx(0.1)
        assert biased[part]["yaw_rate_error"] == pytest.approx(0.2)
    assert biased["after_push"]["lin_vel_error"] is None and biased["segment_mean"]["segments"] == 2


def test_trace_lines_are_the_episode_its_window_average_and_its_pushes():
    command = [[1.0, 0.0, 0.0]] * 10 + [[0.0, 0.3, 0.5]] * 10
    rows = made_up_episode(command, 0.2, [0.0, 0.1, -0.2], pushes=[4, 15])
    time_s, panels, pushes = tracking_errors.trace_lines(rows, 0.02, 0.04)
    np.testing.assert_allclose(time_s, 0.02 * np.arange(1, 21))
    np.testing.assert_allclose(pushes, [0.1, 0.32])
    assert [title for title, *_ in panels] == [title for title, _ in tracking_errors.TRACE_PANELS]
    for j, (_, commanded, per_step, averaged) in enumerate(panels):
        np.testing.assert_array_equal(commanded, rows[:, 3 + j])
        np.testing.assert_array_equal(per_step, rows[:, j])
        expected = np.concatenate([tracking_errors.moving_average(rows[a:b, j:j + 1], 2)[:, 0] for a, b in
                                   [(0, 10), (10, 20)]])  # two steps, never across the command change
        np.testing.assert_allclose(averaged, expected)
    np.testing.assert_allclose(panels[0][3][1:10], 1.0)  # the alternating wobble averages out over two steps


def test_the_trace_reads_what_play_measures():
    exported = play.load_exported(VELOCIRAPTOR_STAGE2)
    data, draws = mujoco.MjData(exported.mj_model), play.numpy_draws(np.random.default_rng(3))
    rows, record = tracking_errors.traced_episode(exported, data, draws)
    lin, yaw = tracking_errors.errors(rows[:, :3], rows[:, 3:6])
    assert len(rows) == record["episode_length"]
    assert lin.mean() == pytest.approx(record["lin_vel_error_mean"], rel=1e-9)
    assert yaw.mean() == pytest.approx(record["yaw_rate_error_mean"], rel=1e-9)


def test_command_line_writes_the_split(tmp_path):
    out, plot = tmp_path / "errors.json", tmp_path / "trace.png"
    tracking_errors.main([VELOCIRAPTOR_STAGE2, "--episodes", "2", "--out", str(out), "--plot", str(plot)])
    assert plot.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    record = json.loads(out.read_text())
    assert record["env"] == "velociraptor_stage2" and record["episodes"] == 2
    assert set(record["gains"]) == set(tracking_errors.AXES)
    for part in ("per_step", "window", "segment_mean", "quiet"):
        assert record[part]["lin_vel_error"] >= 0.0 and record[part]["yaw_rate_error"] >= 0.0
    assert record["window"]["yaw_rate_error"] < record["per_step"]["yaw_rate_error"]  # its legs' jitter averages out


@pytest.mark.parametrize("arguments, message", [
    ([VELOCIRAPTOR_STAGE2, "--episodes", "0"], "at least 1"),
    ([VELOCIRAPTOR_STAGE2, "--window", "0"], "more than 0 seconds"),
    ([VELOCIRAPTOR_STAGE2, "--plot", "trace.jpg"], "a .png file"),
    ([VELOCIRAPTOR_STAGE2.replace("stage2", "stage3")], "follows no velocity commands"),
])
def test_bad_input_is_one_line_and_exit_code_2(arguments, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        tracking_errors.main(arguments)
    assert exit_info.value.code == 2
    error = capsys.readouterr().err
    assert message in error and error.count("\n") == 1
