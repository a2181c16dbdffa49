"""analysis/episode_ends.py with env overrides, run from the checkout:

    python results/experiments/stage2_braking/ends_with.py FOLDER EPISODES KEY=VALUE ...
"""
import os
import sys

sys.path.insert(0, os.getcwd())
sys.path.insert(0, os.path.join(os.getcwd(), "analysis"))
from analysis import episode_ends  # noqa: E402
import evaluate  # noqa: E402
from configs import parse_overrides  # noqa: E402

folder, episodes, *settings = sys.argv[1:]
overrides = parse_overrides(settings)
saved = evaluate.checkpoint_settings
evaluate.checkpoint_settings = lambda path, env_name, extra: saved(path, env_name, {**extra, **overrides})
episode_ends.main([folder, "--episodes", episodes])
