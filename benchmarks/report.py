"""The figures users choose a tool by, measured on whatever machine runs this, in one command: raw env vs PPO
throughput per species, seeds vmapped, the auto-reset's share of a step, the speed levers (matmul precision, an XLA
flag, the MJX implementation) and every species' curriculum. Writes results/<device>_<date>/report.md and report.json.

    python benchmarks/report.py                        # every piece not done yet, until --budget-s is spent
    python benchmarks/report.py --pieces throughput,seeds
    python benchmarks/report.py --list                 # the pieces, and which are done

Run the same command again to go on: each piece runs in its own process (fresh device memory, its own XLA flags) and
writes pieces/<piece>.json in the report folder as it ends, and a call starts no piece once its budget is spent, so a
chain of calls, each well inside a lent GPU's 10 minutes, completes the report. A piece killed at the budget is run
again by the next call. A curriculum piece trains `python ppo_mjx.py --env <species> --curriculum --seed 0` into
<curricula>/<species>_curriculum_<backend>_seed0 (default: in the report folder), or resumes it there; near the
budget's end it is stopped as Ctrl-C stops it (a checkpoint is written) and the next call resumes it. Sizes are the
GPU's (1024/4096/8192 envs) where JAX finds a GPU, small ones on a CPU. On a machine whose files come back only
through one folder, write the report outside the repository copy and pack it into that folder (README, "On a GPU"):

    python3 benchmarks/report.py --out REPORT_FOLDER --budget-s 480 --pack RETURNED_FOLDER/report.tar.gz
"""

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tarfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")  # this process must leave the GPU to its pieces

import startup  # noqa: E402

startup.before_jax()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import curriculum  # noqa: E402
import envs  # noqa: E402
import runs  # noqa: E402
import simulation  # noqa: E402
import training  # noqa: E402
from benchmarks import SPECIES, curriculum_folder, seeds, throughput  # noqa: E402
from configs import ConfigError, curriculum_stages  # noqa: E402

SIZES = {  # per backend: envs of the throughput pieces, envs per seed of the seed pieces, updates per timed call
    "gpu": dict(num_envs=(1024, 4096, 8192), seed_envs=1024, updates=10),
    "cpu": dict(num_envs=(64, 256), seed_envs=16, updates=3),
}
REPEATS = 3  # timed calls per measurement; medians are reported
LEVER_ENVS = {"gpu": 4096, "cpu": 256}  # envs of the reset, precision, XLA-flag and MJX-implementation pieces
TRITON_FLAG = "--xla_gpu_triton_gemm_any=true"
STOP_GRACE_S = 60  # a curriculum stopped by Ctrl-C finishes its chunk and writes its checkpoint within this


# ---------------------------------------------------------------- the pieces, each run in its own process


def piece_names(backend):
    """Every piece of the report, in the order they run."""
    sizes = SIZES[backend]
    return ([f"throughput:{species}:{n}" for species in SPECIES for n in sizes["num_envs"]]
            + [f"reset:{species}" for species in SPECIES]
            + ["seeds:4", "seeds:16", "precision:default", "precision:highest", "xla_flag:triton_gemm_any",
               "mjx_impl:jax", "mjx_impl:warp"]
            + [f"curriculum:{species}" for species in SPECIES])


def run_throughput(backend, species, num_envs):
    return throughput.measure(f"{species}_stage1", int(num_envs), SIZES[backend]["updates"], REPEATS)


def fresh_keys(state):
    """The next keys of a batch of reset states, made to depend on every float of them: XLA computes no more of a
    reset than its output needs, and a stepping env keeps all of it."""
    total = sum(jnp.sum(x) for x in jax.tree.leaves(state) if jnp.issubdtype(x.dtype, jnp.floating))
    return jax.vmap(jax.random.fold_in, in_axes=(0, None))(state.rng, total.astype(jnp.uint32) % 2)


def run_reset(backend, species):
    """The fresh randomized start computed in every env step for auto-reset, as a share of the step: the vmapped
    reset timed against the vmapped step that contains it, same envs, same states."""
    num_envs = LEVER_ENVS[backend]
    env = envs.make_env(f"{species}_stage1")
    keys = jax.random.split(jax.random.key(0), num_envs)
    state = jax.jit(jax.vmap(env.reset))(keys)
    action = 0.1 * jax.random.normal(jax.random.key(1), (num_envs, env.action_size))
    steps, length = 20, jnp.arange(20)
    step = jax.jit(lambda state: jax.lax.scan(lambda s, _: (jax.vmap(env.step)(s, action), None), state, length)[0])
    reset = jax.jit(lambda keys: jax.lax.scan(lambda k, _: (fresh_keys(jax.vmap(env.reset)(k)), None), keys,
                                              length)[0])
    first = [throughput.timed(step, state), throughput.timed(reset, keys)]
    step_s = [throughput.timed(step, state) for _ in range(REPEATS)]
    reset_s = [throughput.timed(reset, keys) for _ in range(REPEATS)]
    step_t, reset_t = float(np.median(step_s)) / steps, float(np.median(reset_s)) / steps
    return dict(env=env.name, num_envs=num_envs, first_call_seconds=first, step_seconds=step_s,
                reset_seconds=reset_s, step_ms=1e3 * step_t, reset_ms=1e3 * reset_t, reset_share=reset_t / step_t)


def run_seeds(backend, num_seeds):
    return seeds.measure("trex_stage1", SIZES[backend]["seed_envs"], int(num_seeds), SIZES[backend]["updates"],
                         REPEATS)


def physics_agreement(num_envs=16, num_steps=25):
    """How far MJX's T-Rex drifts from plain MuJoCo's (C, float64) under the same small random actions from the same
    starts: pelvis position difference (mm) after `num_steps` control steps (0.5 s), RMS over `num_envs` starts."""
    mjx_env, mujoco_env = (envs.make_env("trex_stage1", physics, push_interval=0) for physics in ("mjx", "mujoco"))
    actions = 0.1 * jax.random.normal(jax.random.key(2), (num_steps, num_envs, mjx_env.action_size))

    def final_pelvis(env):
        state = jax.vmap(env.reset)(jax.random.split(jax.random.key(3), num_envs))
        state = jax.lax.scan(lambda s, a: (jax.vmap(env.step)(s, a), None), state, actions)[0]
        return state.data.qpos[:, :3]

    difference = jax.jit(lambda: final_pelvis(mjx_env) - final_pelvis(mujoco_env))()
    return float(1e3 * np.sqrt(np.mean(np.sum(np.asarray(difference) ** 2, axis=-1))))


def lever_throughput(backend, overrides=None):
    """throughput.measure of T-Rex stage 1 at the levers' size: what each speed lever is judged on."""
    return throughput.measure("trex_stage1", LEVER_ENVS[backend], SIZES[backend]["updates"], REPEATS, overrides)


def run_precision(backend, precision):
    """Training speed and agreement with plain MuJoCo at one matmul precision (JAX's "default" lets a GPU multiply
    float32 in TF32; "highest" keeps float32)."""
    if precision != "default":
        jax.config.update("jax_default_matmul_precision", precision)
    return dict(lever_throughput(backend), precision=precision, pelvis_rms_mm_vs_mujoco=physics_agreement())


def run_xla_flag(backend, flag):
    if backend != "gpu":
        return dict(skipped=f"{TRITON_FLAG} is a flag of XLA's GPU compiler; JAX here runs on {backend}")
    return dict(lever_throughput(backend), xla_flags=os.environ["XLA_FLAGS"])


def run_mjx_impl(backend, impl):
    try:
        simulation.check_mjx_impl(impl)
    except ConfigError as error:
        return dict(skipped=str(error))
    return lever_throughput(backend, {"mjx_impl": impl})


PIECES = dict(throughput=run_throughput, reset=run_reset, seeds=run_seeds, precision=run_precision,
              xla_flag=run_xla_flag, mjx_impl=run_mjx_impl)


def run_piece(name, folder):
    """Run one piece in this process and write its figures to pieces/<name>.json."""
    kind, *args = name.split(":")
    start = time.monotonic()
    result = dict(PIECES[kind](jax.default_backend(), *args), piece=name, date=time.strftime("%Y-%m-%d %H:%M"),
                  wall_s=time.monotonic() - start)
    runs.atomic_write(piece_path(folder, name), json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1))


# ---------------------------------------------------------------- the calls: pieces one after another in a budget


def piece_path(folder, name):
    return os.path.join(folder, "pieces", name.replace(":", "_") + ".json")


def curriculum_state(folder):
    """curriculum.json of `folder`, or None where no curriculum started there."""
    path = os.path.join(folder, curriculum.CURRICULUM_FILE)
    return json.load(open(path)) if os.path.exists(path) else None


def curriculum_finished(species, state):
    return len(state["stages"]) == len(curriculum_stages(species))


def is_done(name, folder, curricula, backend):
    kind, *args = name.split(":")
    if kind == "curriculum":
        state = curriculum_state(curriculum_folder(curricula, args[0], backend))
        return state is not None and curriculum_finished(args[0], state)
    return os.path.exists(piece_path(folder, name))


def run_curriculum_piece(out, species, seconds):
    """Train or resume the species' curriculum in `out` for at most `seconds`, stopping it as Ctrl-C does before."""
    started = curriculum_state(out) is not None
    command = [sys.executable, os.path.join(ROOT, "ppo_mjx.py"), *(
        ["--resume", out] if started else ["--env", species, "--curriculum", "--seed", "0", "--out", out])]
    print(" ".join(command[1:]), flush=True)
    process = subprocess.Popen(command, cwd=ROOT)
    try:
        process.wait(timeout=max(seconds - STOP_GRACE_S, 1))
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGINT)  # stop after the chunk under way, with a checkpoint
        try:
            process.wait(timeout=STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            process.kill()  # the last checkpoint stays intact
            process.wait()
    return process.returncode


def run_pieces(names, folder, curricula, backend, budget_s):
    """Each piece not done yet, in order, while the budget lasts; a call record."""
    start, ran = time.monotonic(), []
    for name in names:
        left = budget_s - (time.monotonic() - start)
        if is_done(name, folder, curricula, backend):
            continue
        if left < 2 * STOP_GRACE_S:
            print(f"budget spent ({budget_s:.0f} s); run the same command again to go on", flush=True)
            break
        print(f"--- {name} ({left:.0f} s of the budget left)", flush=True)
        piece_start = time.monotonic()
        kind, *args = name.split(":")
        if kind == "curriculum":
            code = run_curriculum_piece(curriculum_folder(curricula, args[0], backend), args[0], left)
        else:
            env = dict(os.environ, XLA_FLAGS=f"{os.environ.get('XLA_FLAGS', '')} {TRITON_FLAG}".strip()) \
                if kind == "xla_flag" and backend == "gpu" else None
            try:
                code = subprocess.run([sys.executable, __file__, "--run-piece", name, "--out", folder], cwd=ROOT,
                                      env=env, timeout=left).returncode
            except subprocess.TimeoutExpired:
                code = "killed at the budget's end"
        ran.append(dict(piece=name, wall_s=time.monotonic() - piece_start, exit=code,
                        done=is_done(name, folder, curricula, backend)))
        print(f"--- {name}: {'done' if ran[-1]['done'] else f'not done ({code})'}", flush=True)
    return dict(date=time.strftime("%Y-%m-%d %H:%M"), wall_s=time.monotonic() - start, pieces=ran)


# ---------------------------------------------------------------- report.md


def report_markdown(report, pieces, curricula):
    """The report's figures as Markdown tables, each target beside the figure it is about."""
    machine = report["machine"]
    lines = [f"# Report: {machine['device']} ({machine['backend']}), {report['folder']}", "",
             f"Machine: {curriculum.machine_line(machine)}, Python {machine['python']}, flax "
             f"{machine['versions']['flax']}. Command: `python benchmarks/report.py` (see its docstring), in "
             f"{len(report['calls'])} call(s): " + "; ".join(
                 f"{c['date']} {c['wall_s']:.0f} s ({', '.join(p['piece'] for p in c['pieces']) or 'nothing left'})"
                 for c in report["calls"]) + ".", ""]
    lines += ["## Throughput: raw vmapped env vs full PPO training (stage 1, random actions at the initial std)", "",
              "| species | envs | raw env steps/s | physics steps/s | PPO env steps/s | train/raw | first calls (s) |",
              "|---|---:|---:|---:|---:|---:|---:|"]
    for name, p in pieces.items():
        if name.startswith("throughput:"):
            lines.append(f"| {p['env'].split('_')[0]} | {p['num_envs']} | {p['raw_env_steps_per_s']:,.0f} | "
                         f"{p['physics_steps_per_s']:,.0f} | {p['ppo_train_steps_per_s']:,.0f} | "
                         f"{p['ratio_train_over_raw']:.2f} | {sum(p['first_call_seconds']):.0f} |")
    lines += ["", "First calls: the raw rollout's and the trainer's first calls, compilation included (from the "
              "persistent cache where a program was compiled before).", ""]
    lines += ["## Seeds vmapped in one program (T-Rex stage 1)", "",
              "| seeds | envs per seed | one seed: s per call | all seeds: s per call | time ratio | "
              "env steps/s, all seeds |", "|---:|---:|---:|---:|---:|---:|"]
    for name, p in pieces.items():
        if name.startswith("seeds:"):
            lines.append(f"| {p['num_seeds']} | {p['num_envs']} | {np.median(p['seconds_one_seed']):.2f} | "
                         f"{np.median(p['seconds_all_seeds']):.2f} | {p['time_all_seeds_over_one_seed']:.2f} | "
                         f"{p['env_steps_per_s_all_seeds']:,.0f} |")
    lines += ["", "## The auto-reset's share of an env step", "",
              "| species | envs | step (ms) | reset (ms) | share |", "|---|---:|---:|---:|---:|"]
    for name, p in pieces.items():
        if name.startswith("reset:"):
            lines.append(f"| {p['env'].split('_')[0]} | {p['num_envs']} | {p['step_ms']:.2f} | {p['reset_ms']:.2f} | "
                         f"{100 * p['reset_share']:.1f}% |")
    lines += ["", "## Speed levers (T-Rex stage 1)", "",
              "| lever | envs | PPO env steps/s | pelvis RMS vs plain MuJoCo after 0.5 s (mm) |",
              "|---|---:|---:|---:|"]
    for name, p in pieces.items():
        kind = name.split(":")[0]
        if kind in ("precision", "xla_flag", "mjx_impl"):
            if "skipped" in p:
                lines.append(f"| {name} | - | not run: {p['skipped']} | - |")
            else:
                drift = f"{p['pelvis_rms_mm_vs_mujoco']:.2f}" if "pelvis_rms_mm_vs_mujoco" in p else "-"
                lines.append(f"| {name} | {p['num_envs']} | {p['ppo_train_steps_per_s']:,.0f} | {drift} |")
    lines += ["", "## Curricula (default configs, seed 0)", "",
              "| species | stage | env steps | training wall time (min) | gate |", "|---|---|---:|---:|---|"]
    for species, (_, state) in curricula.items():
        lines += [f"| {species} | {r['stage']} | {r['env_steps']:,} | {r['train_wall_s'] / 60:.1f} | "
                  f"{'passed' if r['gate_passed'] else 'not passed'} |" for r in state["stages"]]
        if not curriculum_finished(species, state):
            lines.append(f"| {species} | under way | | | |")
    lines.append("")
    for species, (folder, state) in curricula.items():
        lines.append(f"- {species}: `{os.path.relpath(folder, ROOT)}`, sessions (wall min, compiles and evaluations "
                     f"included): " + ", ".join(f"{s['date']} {s['wall_s'] / 60:.0f}" for s in state["sessions"]))
    lines += ["", "## Targets (for one NVIDIA GPU)", "", *targets(report["machine"]["backend"], pieces, curricula)]
    return "\n".join(lines) + "\n"


def targets(backend, pieces, curricula):
    """One line per target: the figure it is judged on and whether it is met."""
    def figure(name, key):
        return pieces.get(name, {}).get(key)

    def verdict(text, value, ok):
        return f"- {text}: " + ("not measured" if value is None else f"{value:,.2f}, " + ("met" if ok(value) else
                                                                                          "NOT met"))

    stage_minutes = [r["train_wall_s"] / 60 for _, state in curricula.values() for r in state["stages"]]
    lines = [
        verdict("train/raw >= 0.8 at 4096 envs (T-Rex)", figure("throughput:trex:4096", "ratio_train_over_raw"),
                lambda v: v >= 0.8),
        verdict("T-Rex stage 1 >= 1M env steps/s at 8192 envs", figure("throughput:trex:8192",
                                                                        "ppo_train_steps_per_s"), lambda v: v >= 1e6),
        verdict("16 seeds vmapped <= 4x one seed's time", figure("seeds:16", "time_all_seeds_over_one_seed"),
                lambda v: v <= 4),
        verdict("every curriculum stage's gate within 10 min of training (longest stage, min)",
                max(stage_minutes) if len(curricula) == len(SPECIES) and all(
                    curriculum_finished(s, state) for s, (_, state) in curricula.items()) else None,
                lambda v: v <= 10),
    ]
    if backend != "gpu":
        lines.insert(0, f"The targets are for one GPU at its sizes; this report ran on {backend} at small sizes, to "
                        "show the command works, so the figures below are not those the targets name.\n")
    return lines


def write_report(folder, curricula_dir, report):
    pieces = {}
    for name in piece_names(report["machine"]["backend"]):
        if os.path.exists(piece_path(folder, name)):
            pieces[name] = json.load(open(piece_path(folder, name)))
    curricula = {}
    for species in SPECIES:
        out = curriculum_folder(curricula_dir, species, report["machine"]["backend"])
        if (state := curriculum_state(out)) is not None:
            curricula[species] = (out, state)
    report = dict(report, pieces=pieces, curricula={s: state for s, (_, state) in curricula.items()})
    runs.atomic_write(os.path.join(folder, "report.json"), json.dumps(report, indent=1) + "\n")
    runs.atomic_write(os.path.join(folder, "report.md"), report_markdown(report, pieces, curricula))


def device_slug(machine):
    """'nvidia-h100-80gb-hbm3' for a GPU; 'cpu-amd-epyc-2cores' for a CPU."""
    name = machine["device"] if machine["backend"] != "cpu" else f"cpu {machine['cpu']} {machine['cpu_count']}cores"
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def pack(folder, path):
    """The report folder as a .tar.gz small enough to bring back from a lent machine: finished runs' checkpoints keep
    their policies alone (ppo_mjx.py --policy-only), unfinished ones stay behind (gigabytes at GPU sizes)."""
    runs.keep_policy_only(folder)

    def small(member):
        root = os.path.join(os.path.dirname(folder), os.path.dirname(member.name))
        finished = os.path.exists(os.path.join(root, "eval.json"))
        return member if finished or os.path.basename(member.name) != runs.CHECKPOINT else None

    with tarfile.open(path, "w:gz") as tar:
        tar.add(folder, arcname=os.path.basename(folder), filter=small)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", default="", help="comma-separated piece kinds or names to run (default: all), "
                                                     "e.g. throughput,seeds:16,curriculum:trex")
    parser.add_argument("--budget-s", type=float, default=540, help="start no piece after this many seconds")
    parser.add_argument("--out", help="report folder (default results/<device>_<date>)")
    parser.add_argument("--curricula", help="folder of the curricula, <species>_curriculum_<backend>_seed0 "
                                            "(default: the report folder)")
    parser.add_argument("--pack", metavar="FILE.tar.gz", help="after the call, pack the report folder into FILE")
    parser.add_argument("--list", action="store_true", help="list the pieces and which are done, then stop")
    parser.add_argument("--run-piece", help=argparse.SUPPRESS)  # one piece, in the process the call started
    args = parser.parse_args(argv)
    training.enable_compilation_cache()  # before JAX starts: the CLI's XLA flags, so pieces time what training runs
    machine = runs.machine()
    backend = machine["backend"]
    folder = args.out or os.path.join(ROOT, "results", f"{device_slug(machine)}_{time.strftime('%Y-%m-%d')}")
    curricula = args.curricula or folder
    if args.run_piece:
        return run_piece(args.run_piece, folder)
    wanted = [w for w in args.pieces.split(",") if w]
    names = [n for n in piece_names(backend) if not wanted or n in wanted or n.split(":")[0] in wanted]
    if not names:
        print(f"error: no piece matches --pieces {args.pieces}; pieces: {', '.join(piece_names(backend))}",
              file=sys.stderr)
        sys.exit(2)
    if args.list:
        for name in names:
            print(f"{'done' if is_done(name, folder, curricula, backend) else 'todo'}  {name}")
        return
    os.makedirs(os.path.join(folder, "pieces"), exist_ok=True)
    saved = os.path.join(folder, "report.json")
    report = json.load(open(saved)) if os.path.exists(saved) else dict(machine=machine, calls=[])
    report["folder"] = os.path.relpath(folder, ROOT)
    report["calls"].append(run_pieces(names, folder, curricula, backend, args.budget_s))
    write_report(folder, curricula, report)
    left = [n for n in piece_names(backend) if not is_done(n, folder, curricula, backend)]
    print(f"wrote {os.path.join(folder, 'report.md')}; pieces left: {', '.join(left) or 'none'}")
    if args.pack:
        pack(folder, args.pack)
        print(f"packed {folder} into {args.pack} ({os.path.getsize(args.pack) / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
