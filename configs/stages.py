"""The three curriculum stages every species goes through. `species_stages` merges the PPO hyperparameters, the
physics and body defaults, a stage's settings and a species' body settings into one complete config per stage.

Gates (`gate`): during training the policy (its mean action, or sampled actions: `eval_actions`) is evaluated every
`eval_every` updates (at the end of a progress chunk, see `log_every`) on `eval_episodes` episodes drawn afresh at
each evaluation; an evaluation passes when every metric in `min` is at least its threshold; the stage ends when
`consecutive` evaluations in a row pass, or when `total_timesteps` (the stage's step budget) runs out. Metric names
are those of eval.json (e.g. success_rate, reached_time_limit, episode_length, forward_speed_mean). Why the gates and
pushes are what they are: results/README.md.
"""

import copy

from configs.ppo import PPO

# How the physics runs, the same for every species and stage.
PHYSICS = dict(
    mjx_impl="jax",  # MJX implementation: "jax" (any JAX device) or "warp" (MuJoCo Warp kernels: NVIDIA GPU only)
)

# Body settings every species has unless it states its own.
BODY = dict(
    sim_dt=0.004,  # physics timestep (s); overrides the MJCF option
    ctrl_dt=0.02,  # control period (s): 50 Hz, 5 physics substeps per env step
    action_scale=0.5,  # action +-1 reaches this fraction of the way from home to each joint limit
    reset_joint_noise=0.05,  # uniform noise (rad) on joint angles at reset
    reset_yaw=True,  # random heading at reset
    max_tilt=0.7,  # terminate when the pelvis tilts more than this (rad) from its home attitude
    posture_sigma=0.5,  # width (rad) of the posture reward around the home pose
    # Domain randomization (randomization.py), drawn afresh at every episode's reset for every env. A range is
    # (low, high), drawn uniformly; a number is fixed; None turns one off. Ranges start from MuJoCo Playground's
    # locomotion ones. The models' position servos have no velocity gain (kv): joint damping stands in for it.
    randomize=dict(
        enabled=True,  # False: the nominal model, exact observations, no delay
        friction=(0.4, 1.0),  # sliding friction of the feet on the floor (nominal 1.0)
        body_mass=(0.9, 1.1),  # scale of each body's mass and inertia, one draw per body
        payload=(-1.0, 1.0),  # (kg) mass added to `payload_body`; each species scales it to its mass
        payload_body="pelvis",  # the body that carries the payload
        kp=(0.9, 1.1),  # scale of each actuator's position gain (with its bias term)
        damping=(0.9, 1.1),  # scale of each joint's damping
        armature=(0.9, 1.1),  # scale of each joint's armature (rotor inertia)
        home_offset=(-0.05, 0.05),  # (rad) per actuator: action 0 holds home + offset, a miscalibrated joint zero
        action_delay=(0, 1),  # control steps between an action and the motors (0-2), drawn per episode
        # amplitude of uniform noise on each observation element, fresh every step, per observation group (units as
        # tasks.OBSERVATION_GROUPS); contacts and the previous action are known exactly
        obs_noise=dict(gravity=0.05, pelvis_height=0.01, linear_velocity=0.1, angular_velocity=0.2, joint_angles=0.03,
                       joint_velocities=1.5, foot_contacts=0.0, previous_action=0.0, target_horizontal=0.05,
                       target_height=0.05),
    ),
)

BALANCE = dict(
    task="balance",  # stage 1: stand where you started, under random pushes
    total_timesteps=20_000_000,  # step budget of the stage (env steps)
    ent_coef=1e-2,  # entropy bonus: at PPO's 1e-3 the std collapsed and the mean fell under randomization
    gamma=0.99,  # horizon ~100 steps (2 s): at 0.97 (0.7 s) the policies fell off a cliff past their pushes
    episode_length=500,  # control steps before time-limit truncation (10 s at 50 Hz)
    push_interval=(40, 60),  # control steps until the next push, drawn at each push (0 = no pushes); ~1 s at 50 Hz
    push_speed=(0.2, 0.4),  # range (m/s) of a push's horizontal velocity kick, drawn at each; each species sets its own
    reward_weights=dict(
        upright_height=1.0,  # standing at home height, upright; ~0 when lying, sitting or crouching
        posture=0.5,  # closeness to the home pose, only paid while standing
        lin_vel=-0.5,  # horizontal pelvis speed squared (stand still)
        ang_vel=-0.05,  # pelvis angular speed squared
        action_rate=-0.05,  # squared change of action between steps (smoothness, against bouncing)
        torque=-1e-6,  # squared actuator forces (energy)
        termination=-10.0,  # paid once when the episode terminates by a fall, never on truncation or success
    ),
    # standing at the time limit in 0.95 of the episodes, issue 19's target: at 0.9 the stage ended short of it
    gate=dict(min=dict(success_rate=0.95), consecutive=3, eval_every=10),
)

LOCOMOTION = dict(
    task="locomotion",  # stage 2: walk toward a far target along a commanded heading
    total_timesteps=50_000_000,  # step budget of the stage (env steps)
    gamma=0.99,  # as stage 1: at 0.97 the Brachiosaurus walked to the time limit in 0.84 of episodes, at 0.99 1.00
    episode_length=500,  # control steps before time-limit truncation (10 s)
    push_interval=100,  # control steps between random pushes (2 s)
    push_speed=0.3,  # magnitude (m/s) of a push's horizontal velocity kick
    warm_start_log_std=-1.0,  # the policy's log std restarts here when warm-started: explore the new task
    command_distance=100.0,  # the target (m) sits this far away: its direction is the commanded heading
    heading_range=0.8,  # the heading is drawn within +-this (rad) of the start facing
    reward_weights=dict(
        forward_speed=1.0,  # pelvis speed (m/s) toward the target, capped at `target_speed`
        lateral_speed=-0.2,  # squared pelvis speed across the heading
        facing=0.2,  # cosine between the pelvis facing and the heading
        upright_height=0.5,  # standing at home height, upright
        posture=0.1,  # loose: walking needs the legs away from home
        ang_vel=-0.02,  # pelvis angular speed squared
        action_rate=-0.05,  # squared change of action between steps
        torque=-1e-6,  # squared actuator forces
        termination=-10.0,  # paid once on a fall
    ),
    # gate: walking speed (m/s) toward the target, and the share of episodes that reach the time limit: issue 19's
    # 0.9; at 0.75 the Velociraptor and the Brachiosaurus left the stage reaching it in 0.84-0.88
    gate=dict(min=dict(forward_speed_mean=2.0, reached_time_limit=0.9), consecutive=3, eval_every=10),
)

BEHAVIOUR = dict(
    task="behaviour",  # stage 3: bring a tip (jaw, claw, head) to a target placed at random every episode
    total_timesteps=50_000_000,  # step budget of the stage (env steps)
    gamma=0.99,  # as stage 1: at 0.97 a success 0.7 s later was worth a third as much, and the T-Rex lunged and fell
    episode_length=500,  # control steps before time-limit truncation (10 s)
    push_interval=0,  # control steps between random pushes: 0 = no pushes
    warm_start_log_std=-1.0,  # the policy's log std restarts here when warm-started
    target_distance=(2.0, 8.0),  # range (m) of the target's distance ahead of the start position
    target_lateral=1.5,  # the target sits up to +-this (m) to the side
    proximity_sigma=1.0,  # width (m) of the reward bump around the target for the tip
    reward_weights=dict(
        forward_speed=0.5,  # speed (m/s) toward the target, capped at `target_speed`
        facing=0.2,  # cosine between the pelvis facing and the direction to the target
        # exp(-(tip distance / proximity_sigma)^2); off: paid at every step near the target, it made standing there
        # for ever worth as much as the success that ends the episode, and policies stood (results/README.md)
        proximity=0.0,
        closing=0.5,  # speed (m/s) at which the nearest tip closes on the target: standing still earns nothing
        # paid once when a tip comes within `success_radius`; the episode then ends. Twice what standing next to the
        # target for ever pays at gamma 0.99 (0.75 a step, 75), as 50 was twice the 25 it pays at 0.97
        success=150.0,
        upright_height=0.5,  # standing at home height, upright
        posture=0.05,  # closeness to the home pose
        ang_vel=-0.02,  # pelvis angular speed squared
        action_rate=-0.05,  # squared change of action between steps
        torque=-1e-6,  # squared actuator forces
        termination=-10.0,  # paid once on a fall
    ),
    # a tip reached the target in 0.95 of the episodes, issue 19's target: at 0.9 the stage ended at 0.88-0.91
    gate=dict(min=dict(success_rate=0.95), consecutive=3, eval_every=10),
)

STAGES = (BALANCE, LOCOMOTION, BEHAVIOUR)


def merge(base, changes):
    """A deep copy of `base` with `changes` applied, nested dicts merged key by key."""
    merged = copy.deepcopy(base)
    for key, value in changes.items():
        merged[key] = merge(merged[key], value) if isinstance(value, dict) and key in merged else copy.deepcopy(value)
    return merged


def species_stages(species, body, stage_changes=({}, {}, {})):
    """{"<species>_stage1": config, ...}: PPO hyperparameters + PHYSICS + BODY defaults, then the stage's settings, then
    the species' `body` (what differs from BODY, and any stage setting every stage of it changes, e.g. a reward
    weight), then each stage's own `stage_changes` (e.g. the stage-1 push speed, the speed gate, the tip sites and
    target heights of the behaviour); later ones win, nested dicts such as reward_weights merged key by key."""
    defaults = dict(PPO, **PHYSICS, **BODY)
    return {f"{species}_stage{i}": merge(merge(merge(defaults, stage), body), changes)
            for i, (stage, changes) in enumerate(zip(STAGES, stage_changes), start=1)}
