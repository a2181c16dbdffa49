"""T-Rex environment configs. Each dict is complete: PPO hyperparameters (from configs/ppo.py) plus env settings."""

from configs.ppo import PPO

TREX_STAGE1 = dict(
    PPO,
    model="trex.xml",  # MJCF file under models/
    task="balance",  # which task functions envs.py uses
    sim_dt=0.004,  # physics timestep (s); overrides the MJCF option
    ctrl_dt=0.02,  # control period (s): 50 Hz, 5 physics substeps per env step
    episode_length=500,  # control steps before time-limit truncation (10 s)
    action_scale=0.5,  # action +-1 reaches this fraction of the way from home to each joint limit
    reset_joint_noise=0.05,  # uniform noise (rad) on joint angles at reset
    reset_yaw=True,  # random heading at reset
    push_interval=100,  # control steps between random pushes (0 = no pushes); 2 s at 50 Hz
    push_speed=0.3,  # magnitude (m/s) of the horizontal velocity kick of a push
    standing_height=0.8,  # pelvis height (m) that counts as standing in evaluation (home is ~0.9 m)
    min_pelvis_height=0.6,  # terminate below this pelvis height (m)
    min_head_height=0.5,  # terminate below this head height (m)
    max_tilt=0.7,  # terminate when the pelvis tilts more than this (rad) from upright
    height_sigma=0.08,  # width (m) of the standing-height reward bump around home height
    posture_sigma=0.5,  # width (rad) of the posture reward around the home pose
    reward_weights=dict(
        upright_height=1.0,  # standing at home height, upright; ~0 when lying, sitting or crouching
        posture=0.5,  # closeness to the home pose, only paid while standing
        lin_vel=-0.5,  # horizontal pelvis speed squared (stand still)
        ang_vel=-0.05,  # pelvis angular speed squared
        action_rate=-0.05,  # squared change of action between steps (smoothness, against bouncing)
        torque=-1e-6,  # squared actuator forces (energy)
        termination=-10.0,  # paid once when the episode terminates (fall), never on truncation
    ),
)
