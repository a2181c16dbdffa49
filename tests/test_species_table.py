"""benchmarks/species_table.py names the settings a curriculum was trained with beyond the CPU's sizing defaults."""

from benchmarks import species_table
from configs import CPU_CURRICULUM_DEFAULTS


def test_a_curriculum_line_names_only_the_settings_that_differ_from_the_cpu_defaults():
    assert species_table.settings(dict(CPU_CURRICULUM_DEFAULTS)) == "default settings"
    changed = dict(CPU_CURRICULUM_DEFAULTS, num_envs=128, action_scale=0.75)
    assert species_table.settings(changed) == "settings num_envs=128, action_scale=0.75"
