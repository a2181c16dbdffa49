"""Run an exported policy (export.py) in plain MuJoCo without JAX: headless episodes with metrics and a video, or
MuJoCo's viewer, where you steer.

    python play.py results/trex_curriculum_cpu_seed0/trex_stage1/policy.onnx --episodes 32
    python play.py results/trex_curriculum_cpu_seed0/trex_stage3 --episodes 4 --video bite.mp4
    python play.py results/trex_curriculum_cpu_seed0/trex_stage2 --viewer          # steer it (needs a display)
    python play.py results/trex_curriculum_cpu_seed0/trex_stage2 --command 1.5,0,0.5 --video turn.mp4

It needs MuJoCo, onnxruntime and NumPy, never JAX. Start states, observations, actions to controls, rewards, falls and
success are tasks.py's own functions, and the domain randomization (each episode's draws written into the model,
delayed and offset controls, pushes, observation noise) is randomization.py's and the velocity commands' schedule
commands.py's, run on NumPy arrays: the code the policy was trained with. A control step applies the policy's action
(low-passed where the config sets `action_smoothing`), sets the controls, kicks the pelvis when a push is due (as the
stage's config sets pushes), draws a fresh command when one is due and runs ctrl_dt / sim_dt MuJoCo steps; the policy
then observes the data as `mj_step` leaves it, as MJX training does: the new positions and velocities, and the body
poses, contacts and sensors that the last step computed before it integrated (no mj_forward after stepping: this loop
is the one piece that mirrors envs.build_env).
Headless, it prints the metrics evaluate.py prints (with a stage's tracking errors against its random command
schedule, or against one held command: --command), the policy's inference time per step and how much faster than
real time it ran.
"""

import os

import startup

os.environ.setdefault("MUJOCO_GL", startup.headless_gl())  # before MuJoCo loads: videos render headless

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import dataclasses  # noqa: E402
import functools  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any, Callable  # noqa: E402

import mujoco  # noqa: E402
import numpy as np  # noqa: E402
import onnxruntime  # noqa: E402

import commands  # noqa: E402
import files  # noqa: E402
import randomization  # noqa: E402
import rendering  # noqa: E402
import tasks  # noqa: E402
from configs import ConfigError, as_range  # noqa: E402

FORMAT = "dino-mjx-policy-1"  # of policy.json, written by export.py
POLICY_ONNX, POLICY_JSON = "policy.onnx", "policy.json"
KEY_PUSH_SPEED = 0.5  # (m/s) the P key's push in a stage without pushes
KEYS = {  # GLFW key codes the viewer hands to play.py, and what each does; a stage with commands: COMMAND_KEYS
    265: ("Up", "target 0.5 m farther along the dinosaur's facing"),
    264: ("Down", "target 0.5 m nearer"),
    263: ("Left", "turn the target 0.3 rad to the left around the dinosaur"),
    262: ("Right", "turn the target 0.3 rad to the right"),
    266: ("Page Up", "target 0.2 m higher"),
    267: ("Page Down", "target 0.2 m lower"),
    80: ("P", f"push the dinosaur in a random direction (the stage's push speed, the top of a range, or "
              f"{KEY_PUSH_SPEED} m/s)"),
    82: ("R", "start a new episode"),
}
COMMAND_KEYS = {  # GLFW key code: (name, what it does, the change to the command: forward, left (m/s), yaw rate)
    265: ("Up", "faster forward (+0.25 m/s)", (0.25, 0.0, 0.0)),
    264: ("Down", "slower forward, then backward (-0.25 m/s)", (-0.25, 0.0, 0.0)),
    263: ("Left", "turn more to the left (+0.25 rad/s)", (0.0, 0.0, 0.25)),
    262: ("Right", "turn more to the right (-0.25 rad/s)", (0.0, 0.0, -0.25)),
    44: (",", "more sideways to the left (+0.1 m/s)", (0.0, 0.1, 0.0)),
    46: (".", "more sideways to the right (-0.1 m/s)", (0.0, -0.1, 0.0)),
    268: ("Home", "stop: command standing still", None),
}


@dataclass(frozen=True)
class Exported:
    """An exported policy, checked against the model it drives."""

    spec: dict  # policy.json
    config: dict  # the env config it was trained with
    mj_model: mujoco.MjModel
    task: tasks.Task  # on NumPy arrays
    body: tasks.Body
    plan: randomization.Plan  # what its config randomizes; each reset writes the episode's draws into mj_model
    schedule: Any  # its stage's velocity commands (commands.Schedule), or None
    session: Any  # onnxruntime.InferenceSession

    def act(self, obs):
        """The policy's action for one observation."""
        return self.session.run(["action"], {"obs": np.asarray(obs, np.float32)[None]})[0][0]


def sha256_of(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def load_exported(source):
    """The export at `source` (policy.onnx, or the folder holding it and its policy.json); ConfigError, in one line,
    when a file is missing, damaged or made for another model."""
    onnx_path = os.path.join(source, POLICY_ONNX) if os.path.isdir(source) else source
    json_path = os.path.join(os.path.dirname(os.path.abspath(onnx_path)), POLICY_JSON)
    if not os.path.isfile(onnx_path):
        raise ConfigError(f"no ONNX policy at {onnx_path} (export.py writes one)")
    if not os.path.isfile(json_path):
        raise ConfigError(f"{onnx_path} has no policy.json beside it: export.py writes both")
    try:
        with open(json_path) as f:
            spec = json.load(f)
    except (OSError, ValueError) as error:
        raise ConfigError(f"{json_path} is not readable JSON: {error}") from None
    if not isinstance(spec, dict) or spec.get("format") != FORMAT:
        raise ConfigError(f"{json_path} is not a {FORMAT} file")
    try:
        onnx_sha256, model_file, model_sha256 = spec["onnx"]["sha256"], spec["model"]["file"], spec["model"]["sha256"]
        config, actuators, obs_size = spec["config"], spec["action"]["actuators"], spec["observation"]["size"]
    except (KeyError, TypeError) as error:
        raise ConfigError(f"{json_path} lacks {error} (not written by this export.py?)") from None
    if sha256_of(onnx_path) != onnx_sha256:
        raise ConfigError(f"{json_path} was written for another ONNX file than {onnx_path} (SHA-256 differs)")
    model_path = os.path.join(tasks.MODELS_DIR, model_file)
    if not os.path.isfile(model_path) or sha256_of(model_path) != model_sha256:
        raise ConfigError(f"{json_path} is for another model than {model_path} (missing, or its SHA-256 differs)")
    mj_model = tasks.load_model(config)
    if actuators != [mj_model.actuator(i).name for i in range(mj_model.nu)]:
        raise ConfigError(f"{json_path} drives actuators {actuators}, which {model_file} does not have in that order")
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1  # one small MLP per step: threads cost more than they give
    try:
        session = onnxruntime.InferenceSession(onnx_path, options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own types for files it cannot parse
        raise ConfigError(f"{onnx_path} is not a loadable ONNX model: {str(error).splitlines()[0]}") from None
    obs_shape = session.get_inputs()[0].shape
    if obs_shape[-1] != obs_size:
        raise ConfigError(f"{onnx_path} takes observations of size {obs_shape[-1]}, policy.json says {obs_size}")
    return exported_policy(spec, config, mj_model, session)


def exported_policy(spec, config, mj_model, session):
    """An Exported for `config` (checked: ConfigError for a range that cannot be drawn) and its NumPy task."""
    if config.get("task") not in tasks.TASKS:
        raise ConfigError(f"the policy's task {config.get('task')!r} is not one of this code's: "
                          f"{', '.join(tasks.TASKS)} (play it at the commit that trained it)")
    randomization.check(config, mj_model)
    return Exported(spec, config, mj_model, tasks.TASKS[config["task"]](config, mj_model, np),
                    tasks.legged_body(config, mj_model, np), randomization.plan(config, mj_model),
                    commands.schedule(config), session)


def require_commands(exported, asked_by):
    """ConfigError, naming what asked (`asked_by`), for a policy whose stage follows no velocity commands."""
    if exported.schedule is None:
        raise ConfigError(f"{asked_by}: {exported.spec['env']} follows no velocity commands (stage 2 does)")


def holding(exported, command):
    """`exported` playing one velocity command (forward, left, yaw rate) for ever; ConfigError for a policy whose
    stage follows no commands."""
    require_commands(exported, "--command")
    return dataclasses.replace(exported, schedule=commands.held(command))


@dataclass(frozen=True)
class Draws:
    """Where an episode's randomness comes from, each a `uniform(shape, low, high)` callback: `start` for its start
    (tasks.Task.init), `episode` for what it draws at reset (randomization.start_episode), `push(time_step)` for that
    control step's push (randomization.push), `noise(time_step)` for the noise on the observation after that many
    steps and `command(time_step)` for that control step's command schedule (commands.update; -1: the first command,
    at reset). play.py draws them all from one NumPy generator; a test hands in the env's own JAX streams, to replay
    evaluate.py's episodes."""

    start: Callable
    episode: Callable
    push: Callable
    noise: Callable
    command: Callable


def numpy_draws(rng):
    def uniform(shape, low, high):
        return rng.uniform(low, high, size=shape)

    every_step = lambda time_step: uniform  # noqa: E731
    return Draws(uniform, uniform, every_step, every_step, every_step)


def observe(exported, data, prev_action, noise):
    """The observation as the env makes it: tasks' observation, plus uniform noise (from `noise`) where the config
    makes it noisy."""
    obs = exported.task.observe(data, prev_action)
    plan = exported.plan
    return obs if plan.noise is None else obs + noise(obs.shape, -plan.noise, plan.noise)


def applied(exported, obs, prev_action):
    """The action a control step applies after `prev_action`: the policy's for `obs`, clipped and low-passed as the
    config's `action_smoothing` has it (tasks.applied_action; an export from before the setting has none)."""
    return tasks.applied_action(np, exported.config.get("action_smoothing", 0.0), exported.act(obs), prev_action)


def reset(exported, data, draws):
    """A fresh start in `data`, as the env's reset makes one: tasks' start state on blank data, and the episode's
    draws (randomization.py) written into exported.mj_model. Returns (the first observation, the episode: its draws,
    recent actions, next push and next command, as envs.py keeps them)."""
    model, plan = exported.mj_model, exported.plan
    mujoco.mj_resetData(model, data)

    def kinematics(data, **fields):
        for name, value in fields.items():
            getattr(data, name)[:] = value
        mujoco.mj_kinematics(model, data)
        return data

    exported.task.init(draws.start, kinematics, data)
    episode = randomization.start_episode(plan, model.nu, draws.episode, np) if plan.draws_episode else {}
    if exported.schedule is not None:
        command, episode["next_command"] = commands.start(exported.schedule, draws.command(-1), np)
        data.userdata[:] = exported.task.hold_command(data, command, True, 0)
    for field, value in randomization.model_values(plan.fields, plan.where, episode, np).items():
        getattr(model, field)[:] = value
    return observe(exported, data, np.zeros(model.nu), draws.noise(0)), episode


def control_step(exported, data, action, draws, time_step, episode):
    """One control step from `action` (clipped to [-1, 1]) as the env takes it: controls (delayed and offset as the
    episode drew), a push when one is due, a fresh command when one is due, the physics (data as `mj_step` leaves it,
    see above). Returns the episode (its recent actions, next push and next command) and the speed of the push (0
    when none was due)."""
    config, plan = exported.config, exported.plan
    ctrl, episode = randomization.controls(exported.task.action_to_ctrl, np.clip(action, -1.0, 1.0), episode, np)
    data.ctrl[:] = ctrl
    speed = 0.0
    if plan.push_interval:
        kick, speed, episode = randomization.push(plan, time_step, episode, draws.push(time_step), np)
        data.qvel[:2] += kick
    if exported.schedule is not None:
        data.userdata[:], episode["next_command"] = commands.update(
            exported.schedule, time_step, data.userdata.copy(), episode["next_command"], draws.command(time_step), np,
            functools.partial(exported.task.hold_command, data))
    mujoco.mj_step(exported.mj_model, data, nstep=round(config["ctrl_dt"] / config["sim_dt"]))
    return episode, float(speed)


def run_episode(exported, data, draws, poses=None, on_step=None):
    """One episode from a fresh start; returns its record as evaluation.evaluation_rollout keeps one (return, length,
    whether it reached the time limit, each task measure at the last step and its mean over the episode) and the
    seconds spent in the policy. Appends each step's pose (qpos, then mocap positions) to `poses` if given, and calls
    `on_step(data, push speed)` after each control step's physics if given."""
    task, weights = exported.task, exported.config["reward_weights"]
    (obs, episode), prev_action = reset(exported, data, draws), np.zeros(exported.mj_model.nu)
    record, sums, inference_s = dict(episode_return=0.0, episode_length=0, reached_time_limit=False), {}, 0.0
    for time_step in range(exported.config["episode_length"]):
        if poses is not None:
            poses.append(np.concatenate([data.qpos, data.mocap_pos.ravel(), data.userdata]))
        start = time.perf_counter()
        action = applied(exported, obs, prev_action)
        inference_s += time.perf_counter() - start
        episode, push_speed = control_step(exported, data, action, draws, time_step, episode)
        if on_step is not None:
            on_step(data, push_speed)
        finite = bool(np.all(np.isfinite(data.qpos)) and np.all(np.isfinite(data.qvel)))
        failed = not finite or bool(task.is_terminated(data))
        terms = task.reward_terms(data, action, prev_action) if finite else {}
        # a term newer than the export's config weighs 0 there, as configs.from_saved has it for checkpoints
        reward = sum(weights.get(k, 0.0) * float(v) for k, v in terms.items()) + failed * weights["termination"]
        record["episode_return"] += reward
        measures = {k: float(v) if finite else 0.0 for k, v in task.measure(data).items()}
        sums = {k: sums.get(k, 0.0) + v for k, v in measures.items()}
        record |= measures
        record["episode_length"] = time_step + 1
        obs, prev_action = observe(exported, data, action, draws.noise(time_step + 1)), action
        if failed or bool(task.is_success(data)):
            break
    else:
        record["reached_time_limit"] = True
    return record | {f"{k}_mean": v / record["episode_length"] for k, v in sums.items()}, inference_s


def play_episodes(exported, episodes, seed, film=0, episode_draws=None):
    """`episodes` fresh episodes, their randomness from `seed` (or `episode_draws(i)`: Draws of episode i); returns
    (summary, the poses of each of the first `film` episodes)."""
    data, shared = mujoco.MjData(exported.mj_model), numpy_draws(np.random.default_rng(seed))
    records, films, inference_s, start = [], [], 0.0, time.perf_counter()
    for i in range(episodes):
        draws = episode_draws(i) if episode_draws else shared
        poses = [] if i < film else None
        record, seconds = run_episode(exported, data, draws, poses)
        if poses is not None:
            films.append(np.array(poses))
        records.append(record)
        inference_s += seconds
    wall_s = time.perf_counter() - start
    columns = {k: np.array([r[k] for r in records]) for k in records[0]}
    summary = {k: float(np.mean(v)) for k, v in columns.items()}
    if exported.task.episode_success is not None:
        summary["success_rate"] = float(np.mean(exported.task.episode_success(columns)))
    steps = int(columns["episode_length"].sum())
    summary |= dict(env=exported.spec["env"], physics="mujoco", episodes=episodes, seed=seed,
                    policy=f"ONNX export of the checkpoint at update {exported.spec['checkpoint']['update']}, "
                           f"mean actions", steps=steps, wall_s=wall_s,
                    realtime_factor=steps * exported.config["ctrl_dt"] / wall_s,
                    inference_us_per_step=1e6 * inference_s / steps)
    return summary, films


def move_target(exported, data, key):
    """Apply a steering key (KEYS) to the target: farther, nearer, around the dinosaur, higher or lower."""
    body, target = exported.body, exported.body.target_mocap
    pelvis = data.qpos[:3]
    offset = data.mocap_pos[target] - pelvis
    ahead = tasks.facing(body, data)
    if key in (265, 264):
        offset[:2] += (0.5 if key == 265 else -0.5) * ahead
    elif key in (263, 262):
        angle = 0.3 if key == 263 else -0.3
        c, s = np.cos(angle), np.sin(angle)
        offset[:2] = [c * offset[0] - s * offset[1], s * offset[0] + c * offset[1]]
    elif key in (266, 267):
        offset[2] += 0.2 if key == 266 else -0.2
    data.mocap_pos[target] = pelvis + offset


def change_command(command, key):
    """The command (forward, left, yaw rate) after a COMMAND_KEYS key is pressed."""
    change = COMMAND_KEYS[key][2]
    return np.zeros(commands.SIZE) if change is None else np.asarray(command[:commands.SIZE]) + change


def play_in_viewer(exported, seed):
    """The policy in MuJoCo's viewer at real time. A stage that follows velocity commands holds the one the keys set
    (COMMAND_KEYS; standing still at first, or --command's), shown in the viewer; other stages' keys (KEYS) steer the
    target. P pushes and R restarts in both."""
    import mujoco.viewer  # needs a display

    steered = exported.schedule is not None
    if steered and exported.schedule.interval[0] != commands.NEVER:
        exported = holding(exported, np.zeros(commands.SIZE))
    shown = ([(name, what) for name, what, _ in COMMAND_KEYS.values()] if steered
             else [KEYS[code] for code in KEYS if code not in (80, 82)])
    draws, data, pressed = numpy_draws(np.random.default_rng(seed)), mujoco.MjData(exported.mj_model), []
    print("\n".join(f"  {name:>9}  {what}" for name, what in [*shown, KEYS[80], KEYS[82]]))
    if steered:
        print(f"command: {commands.text(exported.schedule.low)}", flush=True)
    with mujoco.viewer.launch_passive(exported.mj_model, data, key_callback=pressed.append) as viewer:
        (obs, episode), time_step = reset(exported, data, draws), 0
        action = np.zeros(exported.mj_model.nu)
        while viewer.is_running():
            start = time.perf_counter()
            with viewer.lock():
                for key in [pressed.pop(0) for _ in range(len(pressed))]:
                    if key == 82:
                        (obs, episode), time_step = reset(exported, data, draws), 0
                    elif key == 80:
                        pushes = KEY_PUSH_SPEED if exported.plan.push_speed is None else exported.plan.push_speed
                        speed = as_range(pushes)[1]
                        angle = draws.start((), -np.pi, np.pi)
                        data.qvel[:2] += speed * np.array([np.cos(angle), np.sin(angle)])
                    elif steered and key in COMMAND_KEYS:  # held from now on, through restarts too
                        exported = holding(exported, change_command(data.userdata, key))
                        data.userdata[:] = exported.task.hold_command(data, exported.schedule.low, True, 0)
                        print(f"command: {commands.text(data.userdata)}", flush=True)
                    elif not steered and key in KEYS:
                        move_target(exported, data, key)
                action = applied(exported, obs, action if time_step else np.zeros_like(action))
                episode, _ = control_step(exported, data, action, draws, time_step, episode)
                time_step += 1
                obs = observe(exported, data, action, draws.noise(time_step))
                if (exported.task.is_terminated(data) or exported.task.is_success(data)
                        or time_step >= exported.config["episode_length"]):
                    (obs, episode), time_step = reset(exported, data, draws), 0
            if steered:
                viewer.set_texts((None, None, "command", commands.text(data.userdata)))
            viewer.sync()
            time.sleep(max(0.0, exported.config["ctrl_dt"] - (time.perf_counter() - start)))


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", help="policy.onnx (its policy.json beside it) or the folder holding both")
    parser.add_argument("--episodes", type=int, default=16, help="headless: episodes from fresh random starts")
    parser.add_argument("--seed", type=int, default=1_000_000, help="seed of the start states and pushes")
    parser.add_argument("--out", help="write the metrics as JSON here")
    rendering.add_video_arguments(parser)
    parser.add_argument("--viewer", action="store_true", help="play in MuJoCo's viewer and steer (needs a display)")
    parser.add_argument("--command", metavar="VX,VY,YAW",
                        help="a stage that follows velocity commands: hold this one (forward, left m/s; yaw rate "
                             "rad/s, to the left) instead of its random schedule; in the viewer, the first")
    return parser.parse_args(argv)


def parse_command(text):
    """(forward, left, yaw rate) from "VX,VY,YAW"; ConfigError otherwise."""
    try:
        command = [float(x) for x in text.split(",")]
    except ValueError:
        command = []
    if len(command) != commands.SIZE or not np.all(np.isfinite(command)):
        raise ConfigError(f"--command {text!r}: three numbers VX,VY,YAW (m/s, m/s, rad/s), e.g. 1.0,0,0.5")
    return command


def main(argv=None):
    args = parse_args(argv)
    try:
        if args.video:
            rendering.check_video(args.video)
        if args.viewer:
            rendering.check_viewer("--episodes and --video")
        if args.episodes < 1:
            raise ConfigError(f"--episodes {args.episodes}: at least 1")
        exported = load_exported(args.source)
        if args.command is not None:
            exported = holding(exported, parse_command(args.command))
    except ConfigError as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if args.viewer:
        play_in_viewer(exported, args.seed)
        return
    summary, films = play_episodes(exported, args.episodes, args.seed, film=args.video_episodes if args.video else 0)
    summary |= dict(held_command=args.command) if args.command is not None else {}
    summary |= dict(command=" ".join(["python play.py", *(argv if argv is not None else sys.argv[1:])]),
                    date=time.strftime("%Y-%m-%d"), machine=files.host(["mujoco", "onnxruntime", "numpy"]))
    print("\n".join(f"{k:>24}  {v:.4g}" if isinstance(v, float) else f"{k:>24}  {v}" for k, v in summary.items()))
    if args.out:
        files.atomic_write(args.out, json.dumps(summary, indent=1) + "\n")
        print(f"wrote {args.out}")
    if args.video:
        overlay = None if exported.schedule is None else rendering.command_overlay(exported.body)
        rendering.write_video(args, exported.mj_model, films, exported.config["ctrl_dt"], overlay)


if __name__ == "__main__":
    main()
