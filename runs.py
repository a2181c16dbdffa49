"""Run folders: atomic writes, checkpoints, metrics CSV, learning-curve plots, where a result was produced, and the
runs of a group (their specs, group.json, summaries, and reading them back to resume). Knows pytrees, not PPO.

A checkpoint is one msgpack file holding the whole train state as {tree path: array} (params, optimizer state,
observation normalizer, env states, rng, update count), the policy alone (params and normalizer, for evaluation),
the config it was trained with, and the metrics rows so far. Loading checks every array against a template built from
the config, so a checkpoint from another env or network size is refused with a message that names the first mismatch.
"""

import csv
import hashlib
import io
import json
import os
import re
import warnings
from dataclasses import dataclass

import flax.serialization
import jax
import numpy as np

import figures
import files
from configs import ConfigError, from_saved, get_config, with_overrides

CHECKPOINT = "checkpoint.msgpack"
FORMAT = "dino-mjx-checkpoint-1"


class CheckpointError(ValueError):
    """Unreadable or mismatched checkpoint; the CLIs turn it into one line and exit code 2."""


def atomic_write(path, data):
    """files.atomic_write (never a half-written file); in a multi-host run only process 0 writes (every process
    holds the same values)."""
    if not jax.process_index():
        files.atomic_write(path, data)


def machine():
    """Where a result was produced: backend, device, CPU, Python and package versions."""
    return dict(backend=jax.default_backend(), device=jax.devices()[0].device_kind,
                **files.host(["jax", "jaxlib", "mujoco", "mujoco-mjx", "flax"]))


def _is_key(x):
    return jax.dtypes.issubdtype(x.dtype, jax.dtypes.prng_key)


def tree_to_arrays(tree):
    """{tree path: numpy array}; typed PRNG keys are stored as their raw key data."""
    flat, _ = jax.tree_util.tree_flatten_with_path(tree)
    return {jax.tree_util.keystr(path): np.asarray(jax.random.key_data(x) if _is_key(x) else x) for path, x in flat}


def arrays_to_tree(arrays, template, what):
    """Rebuild `template`'s pytree from `arrays`, refusing any missing, extra or differently shaped/typed array."""
    flat, treedef = jax.tree_util.tree_flatten_with_path(template)
    expected = {jax.tree_util.keystr(path) for path, _ in flat}
    extra = sorted(set(arrays) - expected)
    if extra:
        raise CheckpointError(f"{what}: {len(extra)} unexpected arrays, e.g. {extra[0]}")
    leaves = []
    for path, like in flat:
        name = jax.tree_util.keystr(path)
        if name not in arrays:
            raise CheckpointError(f"{what}: {name} is missing")
        array = arrays[name]
        want_shape, want_dtype = like.shape, like.dtype
        if _is_key(like):
            want_shape = want_shape + jax.random.key_data(jax.random.key(0)).shape
            want_dtype = np.dtype(np.uint32)
        if array.shape != want_shape or array.dtype != want_dtype:
            raise CheckpointError(f"{what}: {name} is {array.shape} {array.dtype} in the checkpoint, {want_shape} "
                                  f"{np.dtype(want_dtype)} expected")
        leaves.append(jax.random.wrap_key_data(array) if _is_key(like) else jax.numpy.asarray(array))
    return jax.tree_util.tree_unflatten(treedef, leaves)


def save_checkpoint(path, env_name, config, update, runner, policy, rows, wall_s):
    """Atomically write the full train state, the policy alone, the config and the metrics rows so far."""
    write_checkpoint(path, dict(env=env_name, config=config, update=int(update), wall_s=float(wall_s),
                                runner=tree_to_arrays(runner), policy=tree_to_arrays(policy), rows=rows))


def write_checkpoint(path, checkpoint):
    """Atomically write `checkpoint` (as `read_checkpoint` returns it) inside its checksummed envelope."""
    body = flax.serialization.msgpack_serialize(dict(checkpoint, config=json.dumps(checkpoint["config"]),
                                                     rows=json.dumps(checkpoint["rows"])))
    envelope = dict(format=FORMAT, sha256=hashlib.sha256(body).hexdigest(), body=body)
    atomic_write(path, flax.serialization.msgpack_serialize(envelope))


def keep_policy_only(folder):
    """Drop the train state (the envs' physics states and the optimizer's, ~90% of the bytes) from the checkpoint of
    every finished run under `folder` (a run, group or curriculum folder; finished: eval.json written), to commit or
    share it: the policy still evaluates and warm-starts a stage, but the run can no longer resume. Returns the
    checkpoints rewritten."""
    rewritten = []
    for root, _, names in sorted(os.walk(folder)):
        if CHECKPOINT in names and "eval.json" in names:
            path = os.path.join(root, CHECKPOINT)
            checkpoint = read_checkpoint(path)
            if "runner" in checkpoint:
                write_checkpoint(path, {k: v for k, v in checkpoint.items() if k != "runner"})
                rewritten.append(path)
    return rewritten


def read_checkpoint(path):
    """The checkpoint as a dict; CheckpointError if the file is missing, truncated, corrupted or not ours."""
    try:
        with open(path, "rb") as f:
            envelope = flax.serialization.msgpack_restore(f.read())
    except FileNotFoundError:
        raise CheckpointError(f"no checkpoint at {path}") from None
    except Exception as error:  # msgpack raises several unrelated types on damaged input
        raise CheckpointError(f"{path} is not a readable checkpoint (truncated or corrupted?): "
                              f"{type(error).__name__}") from None
    if not isinstance(envelope, dict) or envelope.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a {FORMAT} file")
    if hashlib.sha256(envelope["body"]).hexdigest() != envelope["sha256"]:
        raise CheckpointError(f"{path} is corrupted (checksum mismatch)")
    payload = flax.serialization.msgpack_restore(envelope["body"])
    payload["config"] = json.loads(payload["config"])
    payload["rows"] = json.loads(payload["rows"])
    return payload


def checkpoint_mismatch(path, checkpoint, env_name):
    """The start of a mismatch message naming where the checkpoint came from."""
    config = checkpoint["config"]
    return (f"checkpoint {path} (env '{checkpoint['env']}', actor_hidden {tuple(config['actor_hidden'])}, "
            f"critic_hidden {tuple(config['critic_hidden'])}) does not fit env '{env_name}'")


def load_tree(path, checkpoint, section, template, env_name):
    """One section ("runner" or "policy") of a checkpoint rebuilt on `template`."""
    return arrays_to_tree(checkpoint[section], template, checkpoint_mismatch(path, checkpoint, env_name))


def metrics_csv(rows):
    """Rows (dicts with the same keys) as CSV text."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


CURVES = [
    ("episode return", ["episode_return"]),
    ("episode length", ["episode_length"]),
    ("reward terms (per step)", "reward/"),
    ("tracking errors in training (m/s, rad/s)", ["lin_vel_error", "yaw_rate_error"]),  # a stage with commands
    ("losses", ["actor_loss", "value_loss", "entropy"]),
    ("PPO update size", ["approx_kl", "clip_fraction"]),
    ("env steps / s", ["steps_per_s"]),
]


def curve_panels(columns):
    """The CURVES entries that `columns` (the metrics' names) have something to draw for: (title, their columns)."""
    panels = [(name, [c for c in columns if c.startswith(wanted)] if isinstance(wanted, str)
               else [c for c in wanted if c in columns]) for name, wanted in CURVES]
    return [(name, present) for name, present in panels if present]


def plot_curves(rows, title):
    """PNG bytes: a panel per CURVES entry that the rows have columns for, against env steps."""
    steps = np.array([row["env_steps"] for row in rows], float)
    panels = curve_panels(list(rows[0]))
    fig, axes = figures.figure(2, (len(panels) + 1) // 2, (15 if len(panels) <= 6 else 20, 7.5))
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    for ax, (name, columns) in zip(axes.flat, panels):
        for column in columns:
            values = np.array([row[column] for row in rows], float)
            finite = np.isfinite(values)  # updates in which no episode ended have no episode return
            ax.plot(steps[finite], values[finite], label=column.removeprefix("reward/"))
        ax.set_title(name)
        ax.set_xlabel("env steps")
        ax.grid(alpha=0.3)
        if len(columns) > 1:
            ax.legend(fontsize=7)
    return figures.png(fig, title)


def setting_label(setting):
    """A sweep setting ({key: value}) as text for folder names and legends: "lr=0.0003-ent_coef=0.01"."""
    return "-".join(f"{key}={value!r}" for key, value in setting.items())


def overrides_suffix(pairs):
    """`--set` pairs ("key=value") as a suffix for the names of files measured under them: "_num_minibatches-4"; any
    character but letters, digits, '.', '-' and '_' (commas, brackets, spaces) becomes '_'."""
    return "".join("_" + re.sub(r"[^A-Za-z0-9._-]", "_", pair.replace("=", "-")) for pair in pairs)


def iqm(values):
    """Interquartile mean: the mean after dropping the lowest and the highest quarter (scipy.stats.trim_mean(values,
    0.25), the IQM of Agarwal et al. 2021): robust to one lucky or unlucky seed, unlike the mean."""
    values = np.sort(np.asarray(values, float))
    cut = int(0.25 * len(values))
    return float(values[cut:len(values) - cut].mean())


def rank_settings(members, summaries):
    """One row per sweep setting (members with equal settings differ only in seed) from each member's final
    evaluation: return mean, std (ddof 1), IQM, min, max over seeds, mean success rate and episode length. Best IQM
    first."""
    groups = {}
    for member, summary in zip(members, summaries):
        groups.setdefault(json.dumps(member["setting"]), []).append(summary)
    table = []
    for setting, results in groups.items():
        returns = np.array([r["episode_return"] for r in results])
        table.append(dict(
            setting=json.loads(setting), seeds=len(results), return_mean=float(returns.mean()),
            return_std=float(returns.std(ddof=1)) if len(returns) > 1 else 0.0, return_iqm=iqm(returns),
            return_min=float(returns.min()), return_max=float(returns.max()),
            success_rate=float(np.mean([r.get("success_rate", np.nan) for r in results])),
            episode_length=float(np.mean([r["episode_length"] for r in results]))))
    table.sort(key=lambda row: -row["return_iqm"])
    return [dict(rank=i + 1, **row) for i, row in enumerate(table)]


def settings_markdown(table):
    """The ranked settings as a Markdown table."""
    lines = ["| rank | setting | seeds | return IQM | mean ± std | min | max | success | length |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
    for row in table:
        success = f"{row['success_rate']:.3f}" if np.isfinite(row["success_rate"]) else "n/a"
        lines.append(f"| {row['rank']} | {setting_label(row['setting']) or '(config)'} | {row['seeds']} | "
                     f"{row['return_iqm']:.2f} | {row['return_mean']:.2f} ± {row['return_std']:.2f} | "
                     f"{row['return_min']:.2f} | {row['return_max']:.2f} | {success} | "
                     f"{row['episode_length']:.1f} |")
    return "\n".join(lines) + "\n"


def plot_group_curves(member_rows, labels, title):
    """PNG bytes: episode return and length against env steps, a thin line per member and, per setting (`labels`),
    the mean over its members with a band of one standard deviation."""
    fig, axes = figures.figure(1, 2, (13, 4.5))
    for ax, column in zip(axes, ["episode_return", "episode_length"]):
        for color, label in enumerate(dict.fromkeys(labels)):
            runs_rows = [rows for rows, lab in zip(member_rows, labels) if lab == label]
            steps = np.array([row["env_steps"] for row in runs_rows[0]], float)
            values = np.array([[row[column] for row in rows] for rows in runs_rows], float)
            for line in values:
                ax.plot(steps, line, color=f"C{color}", alpha=0.3, linewidth=0.8)
            with np.errstate(invalid="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)  # updates in which no episode ended are NaN
                mean, std = np.nanmean(values, 0), np.nanstd(values, 0)
            ax.plot(steps, mean, color=f"C{color}", linewidth=2, label=f"{label or 'mean'} ({len(values)} seeds)")
            ax.fill_between(steps, mean - std, mean + std, color=f"C{color}", alpha=0.2)
        ax.set_title(column.replace("_", " "))
        ax.set_xlabel("env steps")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    return figures.png(fig, title)


@dataclass(frozen=True)
class RunSpec:
    """One run of a group trained as one vmapped program (training.run_group): runs share every structural setting
    and differ only in seed and traced hyperparameters. A lone run is a group of one."""

    name: str
    config: dict
    seed: int
    out: str  # its run folder
    setting: dict  # its swept values ({} outside a sweep)


def group_runs(config, seed, num_seeds, grid, group_out):
    """A RunSpec per sweep setting of `grid` and seed (settings outer), each in its run folder under `group_out`."""
    specs = []
    for setting in grid:
        run_config = with_overrides(config, setting)
        for run_seed in range(seed, seed + num_seeds):
            name = f"{setting_label(setting)}_seed{run_seed}" if setting else f"seed{run_seed}"
            specs.append(RunSpec(name, run_config, run_seed, os.path.join(group_out, name), setting))
    return specs


def read_json(path):
    with open(path) as f:
        return json.load(f)


def read_run_settings(folder):
    """(env name, RunSpecs, group folder or None) of a run folder or a group folder, from their saved configs."""
    try:
        group = read_json(os.path.join(folder, "group.json")) if os.path.exists(os.path.join(folder, "group.json")) \
            else None
        described = group["members"] if group else [dict(name=os.path.basename(folder), seed=None, setting={})]
        outs = [os.path.join(folder, d["name"]) if group else folder for d in described]
        saved = [from_saved(read_json(os.path.join(out, "config.json"))) for out in outs]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        raise ConfigError(f"{folder} is not a run, group or curriculum folder with readable config.json files "
                          f"({type(error).__name__})") from None
    specs = [RunSpec(d["name"], get_config(env_name, overrides), seed, out, d["setting"])
             for d, out, (env_name, seed, overrides) in zip(described, outs, saved)]
    return saved[0][0], specs, folder if group else None


def described(specs):
    """Each run's name, seed and swept values, as group.json and summary.json list them."""
    return [dict(name=s.name, seed=s.seed, setting=s.setting) for s in specs]


def write_group(group_out, env_name, specs):
    """group.json: the env and each run's name, seed and swept values (its config is in its own folder)."""
    atomic_write(os.path.join(group_out, "group.json"), json.dumps(dict(env=env_name, members=described(specs)),
                                                                   indent=1))


def write_group_summary(group_out, env_name, specs, summaries, rows):
    """summary.json (every run's evaluation and the settings ranked) and summary.md (the ranking as a table)."""
    table = rank_settings(described(specs), summaries)
    final = [dict(d, eval=s, final_train_return=r[-1]["episode_return"])
             for d, s, r in zip(described(specs), summaries, rows)]
    atomic_write(os.path.join(group_out, "summary.json"),
                 json.dumps(dict(env=env_name, members=final, settings=table), indent=1))
    markdown = settings_markdown(table)
    atomic_write(os.path.join(group_out, "summary.md"), f"# {env_name}: {len(specs)} runs\n\n{markdown}")
    print(markdown, flush=True)
