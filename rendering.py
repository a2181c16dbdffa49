"""Pictures of recorded poses with MuJoCo alone (no JAX: evaluate.py and play.py both film through it): frames,
MP4/GIF bytes, and a replay in MuJoCo's viewer. A pose is qpos followed by the mocap (target) positions."""

import time
import warnings

import mujoco
import numpy as np


def set_pose(mj_model, data, pose):
    """Put a pose (qpos, then the mocap positions, as `evaluation.evaluation_rollout` records them) into `data`."""
    data.qpos[:] = pose[: mj_model.nq]
    data.mocap_pos[:] = pose[mj_model.nq:].reshape(-1, 3)
    mujoco.mj_forward(mj_model, data)


def render_frames(mj_model, poses, width, height, camera):
    """RGB frames [T, height, width, 3] of the given poses [T, nq + 3 nmocap]."""
    data = mujoco.MjData(mj_model)
    camera = camera if mujoco.mj_name2id(mj_model, mujoco.mjtObj.mjOBJ_CAMERA, camera) >= 0 else -1
    frames = []
    with mujoco.Renderer(mj_model, height, width) as renderer:
        for pose in poses:
            set_pose(mj_model, data, pose)
            renderer.update_scene(data, camera=camera)
            frames.append(renderer.render())
    return np.stack(frames)


def video_bytes(frames, extension, fps):
    """An MP4 (imageio-ffmpeg) or GIF (Pillow) of `frames`, as bytes, so it can be written atomically."""
    import imageio.v3 as iio  # only needed for videos

    if extension == ".gif":
        return iio.imwrite("<bytes>", frames, extension=".gif", duration=1000 / fps, loop=0)
    with warnings.catch_warnings():  # imageio-ffmpeg starts ffmpeg, which Python warns about in a JAX process
        warnings.filterwarnings("ignore", "os.fork", RuntimeWarning)
        return iio.imwrite("<bytes>", frames, extension=".mp4", fps=fps)


def episode_poses(poses, lengths, count, every):
    """The first `count` episodes' poses, concatenated, every `every`-th control step."""
    return np.concatenate([poses[: int(lengths[i]): every, i] for i in range(min(count, poses.shape[1]))])


def replay_in_viewer(mj_model, poses, ctrl_dt):
    """Play poses [T, nq + 3 nmocap] in MuJoCo's interactive viewer at real time."""
    import mujoco.viewer

    data = mujoco.MjData(mj_model)
    with mujoco.viewer.launch_passive(mj_model, data) as viewer:
        for pose in poses:
            if not viewer.is_running():
                break
            set_pose(mj_model, data, pose)
            viewer.sync()
            time.sleep(ctrl_dt)
