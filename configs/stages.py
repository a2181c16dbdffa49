"""The three curriculum stages every species goes through. `species_stages` merges the PPO hyperparameters, the
physics and body defaults, a stage's settings and a species' body settings into one complete config per stage.

Gates (`gate`): during training the policy (its mean action, or sampled actions: `eval_actions`) is evaluated every
`eval_every` updates (at the end of a progress chunk, see `log_every`), none before the stage has trained
`min_env_steps` where a gate states it, on `eval_episodes` episodes drawn afresh at each evaluation; an evaluation
passes when every metric in `min` is at least its threshold and every one in `max` at most its own, and where the gate
has a `stress` test (dict(settings={config key: value}, min=..., max=...)), when the policy, evaluated again in the
stage's env with the stress `settings` applied (e.g. pushes past the training's), meets its bounds too; the stage
ends when `consecutive` evaluations in a row pass, or when `total_timesteps` (the stage's step budget) runs out.
Metric names are those of eval.json (e.g. success_rate, reached_time_limit, episode_length, lin_vel_error_mean). Why
the gates and pushes are what they are: docs/findings.md.

Settings that depend on the body's size scale with it where a species states none: `randomize.payload` and the
stage-1 `push_speed` are "scaled" (BODY_SCALED) by default, worked out from the model when an env is built
(randomization.body_scaled); a species states its tuned value in kg or m/s in their place.
"""

import copy

from configs.ppo import PPO

BODY_SCALED = "scaled"  # the value of a setting worked out from the body's size (randomization.body_scaled)

# How the physics runs, the same for every species and stage.
PHYSICS = dict(
    mjx_impl="jax",  # MJX implementation: "jax" (any JAX device) or "warp" (MuJoCo Warp kernels: NVIDIA GPU only)
)

# Body settings every species has unless it states its own.
BODY = dict(
    sim_dt=0.004,  # physics timestep (s); overrides the MJCF option
    solver_iterations=2,  # Newton iterations of the constraint solver per physics step; overrides the MJCF option
    ctrl_dt=0.02,  # control period (s): 50 Hz, 5 physics substeps per env step
    action_scale=0.5,  # action +-1 reaches this fraction of the way from home to each joint limit
    action_smoothing=0.0,  # share of the last applied action each step keeps (a low-pass on the actions); 0: none
    reset_joint_noise=0.05,  # uniform noise (rad) on joint angles at reset
    reset_yaw=True,  # random heading at reset
    observe_command=True,  # observe the velocity command (0 where a stage has none); False: policies from before it
    observe_heading=False,  # observe the heading error against the integrated yaw-rate command (tasks.heading_error)
    observe_contacts=True,  # observe the feet's touch sensors (foot_contacts); False: the critic alone may (privileged)
    contact_weight_share=0.0,  # 0: a contact reads 1 above 1 N, else 0; s > 0: its force / (s x body weight), up to 1
    max_tilt=0.7,  # terminate when the pelvis tilts more than this (rad) from its home attitude
    posture_sigma=0.5,  # width (rad) of the posture reward around the home pose
    # Domain randomization (randomization.py), drawn afresh at every episode's reset for every env. A range is
    # (low, high), drawn uniformly; a number is fixed; None turns one off. Ranges start from MuJoCo Playground's
    # locomotion ones. The models' position servos have no velocity gain (kv): joint damping stands in for it.
    randomize=dict(
        enabled=True,  # False: the nominal model, exact observations, no delay
        friction=(0.4, 1.0),  # sliding friction of the feet on the floor (nominal 1.0)
        body_mass=(0.9, 1.1),  # scale of each body's mass and inertia, one draw per body
        payload=BODY_SCALED,  # (kg) range of mass added to `payload_body`; "scaled": +-payload_share x body mass
        payload_share=0.05,  # the "scaled" payload's share of the body's total mass (the tuned species' are ~5%)
        payload_body="pelvis",  # the body that carries the payload
        kp=(0.9, 1.1),  # scale of each actuator's position gain (with its bias term)
        damping=(0.9, 1.1),  # scale of each joint's damping
        armature=(0.9, 1.1),  # scale of each joint's armature (rotor inertia)
        home_offset=(-0.05, 0.05),  # (rad) per actuator: action 0 holds home + offset, a miscalibrated joint zero
        action_delay=(0, 1),  # control steps between an action and the motors (0-2), drawn per episode
        # uniform noise amplitude per observation group (units: tasks.OBSERVATION_GROUPS), fresh every step
        obs_noise=dict(gravity=0.05, pelvis_height=0.01, linear_velocity=0.1, angular_velocity=0.2, joint_angles=0.03,
                       joint_velocities=1.5, foot_contacts=0.0, previous_action=0.0, target_horizontal=0.05,
                       target_height=0.05),
    ),
)

BALANCE = dict(
    task="balance",  # stage 1: stand where you started, under random pushes
    total_timesteps=20_000_000,  # step budget of the stage (env steps)
    ent_coef=1e-2,  # entropy bonus, 10x PPO's: at 1e-3 the std collapsed and the mean fell under randomization
    gamma=0.99,  # horizon ~100 steps (2 s), past the next push: shorter fell past its pushes
    episode_length=500,  # control steps before time-limit truncation (10 s at 50 Hz)
    push_interval=(40, 60),  # control steps until the next push, drawn at each push (0 = no pushes); ~1 s at 50 Hz
    push_speed=BODY_SCALED,  # (m/s) range of a push's horizontal kick, drawn at each; "scaled": from push_froude
    push_froude=(0.0674, 0.135),  # "scaled" push speeds in sqrt(g x home pelvis height): the T-Rex's 0.2-0.4 m/s
    reward_weights=dict(
        upright_height=1.0,  # standing at home height, upright; ~0 when lying, sitting or crouching
        posture=0.5,  # closeness to the home pose, only paid while standing
        lin_vel=-0.5,  # horizontal pelvis speed squared (stand still)
        ang_vel=-0.05,  # pelvis angular speed squared
        action_rate=-0.05,  # squared change of action between steps (smoothness, against bouncing)
        torque=-1e-6,  # squared actuator forces (energy)
        joint_acc=0.0,  # squared joint accelerations (legged_gym's dof_acc, -2.5e-7 there): off, see findings
        termination=-10.0,  # paid once when the episode terminates by a fall, never on truncation or success
    ),
    gate=dict(min=dict(success_rate=0.95), consecutive=3, eval_every=10),  # pass: 0.95 stand to the time limit
)

VELOCITY = dict(
    task="velocity",  # stage 2: follow a velocity command, redrawn at random times (commands.py)
    total_timesteps=50_000_000,  # step budget of the stage (env steps)
    gamma=0.99,  # horizon ~2 s as in stage 1
    episode_length=500,  # control steps before time-limit truncation (10 s)
    push_interval=100,  # control steps between random pushes (2 s)
    push_speed=0.3,  # magnitude (m/s) of a push's horizontal kick
    warm_start_log_std=-1.0,  # the policy's log std restarts here when warm-started: explore the new task
    command=dict(
        forward=(-0.5, 1.5),  # (m/s) range of the commanded forward speed
        lateral=(-0.3, 0.3),  # (m/s) range of the commanded speed to the left
        yaw_rate=(-0.8, 0.8),  # (rad/s) range of the commanded turning rate to the left
        standing_share=0.1,  # share of draws that command standing still (all zero)
        backward_share=0.0,  # share of moving draws whose forward speed is drawn from the range below 0
        interval=(150, 400),  # control steps until the next draw (3-8 s, as mjlab's velocity task)
    ),
    tracking_sigma=0.25,  # squared error ((m/s)^2, (rad/s)^2) at which a tracking reward falls to 1/e (Playground's)
    reward_weights=dict(
        tracking_lin_vel=1.0,  # exp(-|horizontal velocity - command|^2 / tracking_sigma), in the heading frame
        tracking_yaw_rate=0.5,  # exp(-(yaw rate - command)^2 / tracking_sigma)
        command_speed=1.0,  # speed (m/s) along the commanded direction, capped at it: without it no walk was learned
        command_turn=0.5,  # yaw rate (rad/s) in the commanded sense, capped at it: tracking alone learned no turn
        tracking_lin_vel_linear=0.0,  # max(0, 1 - |horizontal velocity - command| / (1 m/s)): off
        tracking_yaw_rate_linear=0.0,  # max(0, 1 - |yaw rate - command| / (1 rad/s)): off
        tracking_heading=0.0,  # exp(-heading error^2 / tracking_sigma) with observe_heading (0 without): off
        upright_height=0.5,  # standing at home height, upright
        posture=0.1,  # loose: walking needs the legs away from home
        ang_vel=-0.02,  # pelvis angular speed squared, less its turning (commanded)
        orientation=-5.0,  # squared sine of the pelvis tilt from home (the anchors' orientation term)
        action_rate=-0.05,  # squared change of action between steps
        torque=-1e-6,  # squared actuator forces
        joint_acc=0.0,  # squared joint accelerations (legged_gym's dof_acc, -2.5e-7 there): off, see findings
        termination=-10.0,  # paid once on a fall
    ),
    # pass: 0.95 of the episodes to the time limit, tracking within Isaac Lab's bounds for a good policy or tighter,
    # 3 times in a row
    gate=dict(min=dict(reached_time_limit=0.95), max=dict(lin_vel_error_mean=0.25, yaw_rate_error_mean=0.3),
              consecutive=3, eval_every=10),
)

BEHAVIOUR = dict(
    task="behaviour",  # stage 3: bring a tip (jaw, claw, head) to a target placed at random every episode
    total_timesteps=50_000_000,  # step budget of the stage (env steps)
    gamma=0.99,  # horizon ~2 s as in stage 1: at 0.97 a success 0.7 s away was worth a third as much
    episode_length=500,  # control steps before time-limit truncation (10 s)
    push_interval=0,  # control steps between random pushes: 0 = no pushes
    warm_start_log_std=-1.0,  # the policy's log std restarts here when warm-started
    target_distance=(2.0, 8.0),  # range (m) of the target's distance ahead of the start position
    target_lateral=1.5,  # the target sits up to +-this (m) to the side
    proximity_sigma=1.0,  # width (m) of the reward bump around the target for the tip
    approach_command=0.0,  # top speed (m/s) of an observed command to walk to the target (tasks.py); 0: it observes 0
    reward_weights=dict(
        forward_speed=0.5,  # speed (m/s) toward the target, capped at `target_speed`
        facing=0.2,  # cosine between the pelvis facing and the direction to the target
        proximity=0.0,  # exp(-(tip distance / proximity_sigma)^2); off: paid every step, standing by outpaid success
        closing=0.5,  # speed (m/s) at which the nearest tip closes on the target: standing still earns nothing
        success=150.0,  # paid once a tip is within success_radius (ends it): 2x standing by for ever (75 at 0.99)
        upright_height=0.5,  # standing at home height, upright
        posture=0.05,  # closeness to the home pose
        ang_vel=-0.02,  # pelvis angular speed squared
        action_rate=-0.05,  # squared change of action between steps
        torque=-1e-6,  # squared actuator forces
        joint_acc=0.0,  # squared joint accelerations (legged_gym's dof_acc, -2.5e-7 there): off, see findings
        termination=-10.0,  # paid once on a fall
    ),
    gate=dict(min=dict(success_rate=0.95), consecutive=3, eval_every=10),  # pass: a tip reached 0.95 of targets
)

STAGES = (BALANCE, VELOCITY, BEHAVIOUR)


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
