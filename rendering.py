"""Pictures of recorded poses with MuJoCo alone (no JAX: evaluate.py and play.py both film through it): frames,
MP4/GIF bytes, and a replay in MuJoCo's viewer. A pose is qpos, then the mocap (target) positions, then the userdata
(the velocity command), which an overlay may draw."""

import os
import sys
import time
import warnings

import mujoco
import numpy as np

import commands
import files
import tasks
from configs import ConfigError


def set_pose(mj_model, data, pose):
    """Put a pose (qpos, the mocap positions, the userdata, as `evaluation.evaluation_rollout` records them) into
    `data`."""
    mocap_end = mj_model.nq + 3 * mj_model.nmocap
    data.qpos[:] = pose[: mj_model.nq]
    data.mocap_pos[:] = pose[mj_model.nq:mocap_end].reshape(-1, 3)
    data.userdata[:] = pose[mocap_end:]
    mujoco.mj_forward(mj_model, data)


def command_overlay(body, height=0.4):
    """An overlay (for `render_frames`) that draws the velocity command held in `data.userdata`: a green arrow from
    above the pelvis along the commanded horizontal velocity (1 m per m/s, turned with the facing of `body`,
    a tasks.Body on NumPy), at `height` times the pelvis height above it, and the command in short as the caption."""

    def overlay(data, scene):
        command = data.userdata[:commands.SIZE]
        start = data.qpos[:3] * [1.0, 1.0, 1.0 + height]
        velocity = commands.world_velocity(tasks.facing(body, data), command)
        if np.linalg.norm(velocity) > 1e-3 and scene.ngeom < scene.maxgeom:
            arrow = scene.geoms[scene.ngeom]
            mujoco.mjv_initGeom(arrow, mujoco.mjtGeom.mjGEOM_ARROW, np.zeros(3), np.zeros(3), np.zeros(9),
                                np.array([0.1, 0.8, 0.2, 1.0], np.float32))
            mujoco.mjv_connector(arrow, mujoco.mjtGeom.mjGEOM_ARROW, 0.06 * data.qpos[2], start,
                                 start + np.append(velocity, 0.0))
            scene.ngeom += 1
        return f"fwd {command[0]:+.1f} left {command[1]:+.1f} m/s, turn {command[2]:+.1f} rad/s"

    return overlay


def caption(frame, text):
    """`frame` with `text` written at its top left, white on a dark band (Pillow's default font)."""
    from PIL import Image, ImageDraw  # only needed for captions

    image = Image.fromarray(frame)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, image.width, 14), fill=(0, 0, 0))
    draw.text((3, 2), text, fill=(255, 255, 255))
    return np.asarray(image)


def render_frames(mj_model, poses, width, height, camera, overlay=None):
    """RGB frames [T, height, width, 3] of the given poses [T, nq + 3 nmocap + nuserdata]. `overlay(data, scene)`, if
    given, adds geoms to each frame's scene and returns its caption (or None)."""
    data = mujoco.MjData(mj_model)
    camera = camera if mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_CAMERA, camera) >= 0 else -1
    frames = []
    with mujoco.Renderer(mj_model, height, width) as renderer:
        for pose in poses:
            set_pose(mj_model, data, pose)
            renderer.update_scene(data, camera=camera)
            text = overlay(data, renderer.scene) if overlay else None
            frames.append(renderer.render() if text is None else caption(renderer.render(), text))
    return np.stack(frames)


def video_bytes(frames, extension, fps):
    """An MP4 (imageio-ffmpeg) or GIF (Pillow) of `frames`, as bytes, so it can be written atomically."""
    import imageio.v3 as iio  # only needed for videos

    if extension == ".gif":
        return iio.imwrite("<bytes>", frames, extension=".gif", duration=1000 / fps, loop=0)
    with warnings.catch_warnings():  # imageio-ffmpeg starts ffmpeg, which Python warns about in a JAX process
        warnings.filterwarnings("ignore", "os.fork", RuntimeWarning)
        return iio.imwrite("<bytes>", frames, extension=".mp4", fps=fps)


def recorded_episodes(poses, lengths, count):
    """The first `count` episodes of poses recorded [steps, episodes, ...] (valid below each episode's length), as a
    list of [length, ...] arrays."""
    return [poses[: int(lengths[i]), i] for i in range(min(count, poses.shape[1]))]


def add_video_arguments(parser):
    """The video flags of evaluate.py and play.py."""
    parser.add_argument("--video", help="write the first --video-episodes episodes to this .mp4 or .gif")
    parser.add_argument("--video-episodes", type=int, default=1)
    parser.add_argument("--fps", type=int, default=25, help="video frame rate; frames are every k-th control step")
    parser.add_argument("--width", type=int, default=480)
    parser.add_argument("--height", type=int, default=320)
    parser.add_argument("--camera", default="track", help="model camera to film with (free camera if absent)")


def check_video(path):
    """ConfigError (one line) unless a video can be written to `path` here."""
    if os.path.splitext(path)[1] not in (".mp4", ".gif"):
        raise ConfigError(f"--video {path}: the name must end in .mp4 or .gif")
    if os.environ.get("MUJOCO_GL") == "disable":
        raise ConfigError("--video needs OpenGL for headless rendering: install OSMesa (Debian: apt-get install "
                          "libosmesa6) or run on an NVIDIA GPU with EGL")


def check_viewer(instead):
    """ConfigError (one line) where MuJoCo's viewer cannot open a window: on Linux without a display."""
    if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
        raise ConfigError(f"--viewer needs a display (DISPLAY is not set); use {instead} instead")


def write_video(args, mj_model, episodes, ctrl_dt, overlay=None):
    """Film `episodes` (arrays of poses, one per control step) into `args.video`, every k-th step for about
    `args.fps` frames per second, with `overlay` (see `render_frames`) drawn on each frame."""
    every = max(1, round(1 / (args.fps * ctrl_dt)))
    frames = render_frames(mj_model, np.concatenate([poses[::every] for poses in episodes]), args.width, args.height,
                           args.camera, overlay)
    fps = 1 / (every * ctrl_dt)
    files.atomic_write(args.video, video_bytes(frames, os.path.splitext(args.video)[1], fps))
    print(f"wrote {args.video}: {len(frames)} frames at {fps:g} fps")


def replay_in_viewer(mj_model, poses, ctrl_dt):
    """Play poses [T, nq + 3 nmocap + nuserdata] in MuJoCo's interactive viewer at real time."""
    import mujoco.viewer

    data = mujoco.MjData(mj_model)
    with mujoco.viewer.launch_passive(mj_model, data) as viewer:
        for pose in poses:
            if not viewer.is_running():
                break
            set_pose(mj_model, data, pose)
            viewer.sync()
            time.sleep(ctrl_dt)
