"""Config registry: env name -> complete config dict (env settings + PPO hyperparameters)."""

import ast
import copy

from configs.brachiosaurus import BRACHIOSAURUS_STAGES
from configs.ppo import CPU_CURRICULUM_DEFAULTS, CPU_DEFAULTS  # noqa: F401  (the CLI sizes runs with them on a CPU)
from configs.stages import BODY_SCALED
from configs.trex import TREX_STAGES
from configs.velociraptor import VELOCIRAPTOR_STAGES

CONFIGS = {**TREX_STAGES, **VELOCIRAPTOR_STAGES, **BRACHIOSAURUS_STAGES}


class ConfigError(ValueError):
    """Bad env name or override; the CLI turns it into one line and exit code 2."""


def register(stage_configs):
    """Add a species' stage configs ({"<species>_stage1": config, ...}, as `species_stages` makes them) to CONFIGS:
    a species defined outside configs/, its `model` an absolute path to its MJCF file. ConfigError for a name taken."""
    taken = sorted(set(stage_configs) & set(CONFIGS))
    if taken:
        raise ConfigError(f"env names already registered: {', '.join(taken)}")
    CONFIGS.update(stage_configs)


def get_config(name, overrides=None):
    """A deep copy of the named config with `overrides` ({"key": value, "reward_weights.term": value}) applied."""
    if name not in CONFIGS:
        raise ConfigError(f"unknown env '{name}'; valid envs: {', '.join(sorted(CONFIGS))}")
    return with_overrides(CONFIGS[name], overrides or {})


def species_names():
    """Every species with stage configs ("<species>_stage<N>"), sorted: the three built in and any `register`ed."""
    return sorted({name.rsplit("_stage", 1)[0] for name in CONFIGS if "_stage" in name})


def curriculum_stages(name):
    """The env names of `name`'s stages in order ("trex" -> trex_stage1, trex_stage2, trex_stage3)."""
    stages = []
    while f"{name}_stage{len(stages) + 1}" in CONFIGS:
        stages.append(f"{name}_stage{len(stages) + 1}")
    if not stages:
        raise ConfigError(f"no stage configs for '{name}' (expected {name}_stage1, ...); species with a curriculum: "
                          f"{', '.join(species_names())}")
    return stages


def with_overrides(config, overrides):
    """A deep copy of `config` with `overrides` applied, each checked by `set_key`."""
    config = copy.deepcopy(config)
    for key, value in overrides.items():
        set_key(config, key, value)
    return config


def set_key(config, key, value):
    """Set a (dotted) key, refusing unknown keys and values whose type differs from the default's."""
    *parents, leaf = key.split(".")
    node = config
    for part in parents:
        if not isinstance(node.get(part), dict):
            raise ConfigError(f"unknown config key '{key}'")
        node = node[part]
    if leaf not in node or isinstance(node[leaf], dict):
        raise ConfigError(f"unknown config key '{key}'; valid keys: {', '.join(sorted(k for k, _ in flatten(config)))}")
    node[leaf] = coerce(key, node[leaf], value)


# Keys that take a range (low, high) or a single number; the randomize ones also None (off), the SCALABLE ones also
# BODY_SCALED (worked out from the body's size). Element type of each.
RANGE_KEYS = dict(push_speed=float, push_interval=int, push_froude=float, **{f"randomize.{name}": float for name in (
    "friction", "body_mass", "payload", "kp", "damping", "armature", "home_offset")}, **{"randomize.action_delay": int},
    **{f"command.{name}": float for name in ("forward", "lateral", "yaw_rate")}, **{"command.interval": int})
SCALABLE = ("push_speed", "randomize.payload")


def is_range(value):
    """Whether a RANGE_KEYS value is a (low, high) range rather than one number."""
    return isinstance(value, (list, tuple))


def as_range(value):
    """(low, high) of a range or of a fixed number."""
    return tuple(value) if is_range(value) else (value, value)


def coerce_range(key, value):
    """`value` for a RANGE_KEYS key: a number, a (low, high) pair with low <= high, (randomize ones) None or
    (SCALABLE ones) BODY_SCALED."""
    number = RANGE_KEYS[key]
    is_number = (lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)) if number is float else (
        lambda v: isinstance(v, int) and not isinstance(v, bool))
    if (value is None and key.startswith("randomize.")) or (value == BODY_SCALED and key in SCALABLE):
        return value
    if is_number(value):
        return number(value)
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(is_number(v) for v in value):
        if value[0] > value[1]:
            raise ConfigError(f"config key '{key}': range ({value[0]}, {value[1]}) has low above high")
        return tuple(number(v) for v in value)
    kind = "whole numbers" if number is int else "numbers"
    others = [*(["None"] if key.startswith("randomize.") else []), *([repr(BODY_SCALED)] if key in SCALABLE else [])]
    raise ConfigError(f"config key '{key}' expects {kind}: one, a (low, high) range"
                      f"{''.join(', ' + other for other in others[:-1])}{' or ' + others[-1] if others else ''}, "
                      f"got {value!r}")


def coerce(key, default, value):
    """`value` as the type of `default` (ints are accepted for floats, lists for tuples); range keys as
    `coerce_range`."""
    if key in RANGE_KEYS:
        return coerce_range(key, value)
    if isinstance(default, bool) or default is None:
        ok = isinstance(value, type(default))
    elif isinstance(default, float):
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        value = float(value) if ok else value
    elif isinstance(default, tuple):
        ok = isinstance(value, (list, tuple)) and all(isinstance(v, type(default[0])) for v in value)
        value = tuple(value) if ok else value
    else:
        ok = isinstance(value, type(default)) and not isinstance(value, bool)
    if not ok:
        raise ConfigError(f"config key '{key}' expects {type(default).__name__}, got {value!r}")
    return value


def flatten(config, prefix=""):
    """(key, value) for every settable key, nested ones dotted: get_config(name, dict(flatten(config))) rebuilds it."""
    for key, value in config.items():
        if isinstance(value, dict):
            yield from flatten(value, f"{prefix}{key}.")
        else:
            yield prefix + key, value


def parse_overrides(pairs):
    """`KEY=VALUE` strings -> {key: value}; VALUE is a Python literal, or a plain string."""
    overrides = {}
    for pair in pairs:
        key, sep, text = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"override '{pair}' is not KEY=VALUE")
        try:
            overrides[key] = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            overrides[key] = text
    return overrides


def from_saved(saved):
    """(env name, seed, overrides) from a config saved with its env and seed (config.json, checkpoints):
    get_config(name, overrides) rebuilds it, refusing keys the env no longer has."""
    settings = dict(saved)
    env_name, seed = settings.pop("env"), settings.pop("seed")
    if settings.get("task") == "locomotion":
        raise ConfigError(f"{env_name} was trained on the heading task (walk toward a far target), which stage 2 no "
                          f"longer is (it follows velocity commands): evaluate it at the commit that trained it")
    overrides = dict(flatten(settings))
    if "randomize" not in settings:  # saved before domain randomization: trained on the nominal model
        overrides["randomize.enabled"] = False
    if "eval_actions" not in settings:  # saved when evaluations sampled actions
        overrides["eval_actions"] = "sampled"
    if "observe_command" not in settings:  # saved before the observation carried the velocity command
        overrides["observe_command"] = False
    if "solver_iterations" not in settings:  # saved when the MJCF's 2 iterations held
        overrides["solver_iterations"] = 2
    if "action_smoothing" not in settings:  # saved before actions could be low-passed
        overrides["action_smoothing"] = 0.0
    if "action_noise_correlation" not in settings:  # saved when exploration noise was white
        overrides["action_noise_correlation"] = 0.0
    if "symmetry_ratio_from_image" not in settings:  # saved when mirror images took rsl_rl's ratios
        overrides["symmetry_ratio_from_image"] = False
    if settings.get("task") == "behaviour" and "approach_command" not in settings:  # saved when stage 3 observed 0
        overrides["approach_command"] = 0.0
    for term in CONFIGS.get(env_name, {}).get("reward_weights", {}):  # a term newer than the saved config: unpaid then
        if term not in settings["reward_weights"]:
            overrides[f"reward_weights.{term}"] = 0.0
    if settings.get("task") == "velocity" and "backward_share" not in settings["command"]:  # saved before the share
        overrides["command.backward_share"] = 0.0
    return env_name, seed, overrides
