"""T-Rex: body settings shared by its three stages, and the stage configs built from them (configs/stages.py)."""

from configs.stages import species_stages

TREX = dict(
    model="trex.xml",  # MJCF file under models/
    sim_dt=0.004,  # physics timestep (s); overrides the MJCF option
    ctrl_dt=0.02,  # control period (s): 50 Hz, 5 physics substeps per env step
    action_scale=0.5,  # action +-1 reaches this fraction of the way from home to each joint limit
    reset_joint_noise=0.05,  # uniform noise (rad) on joint angles at reset
    reset_yaw=True,  # random heading at reset
    standing_height=0.8,  # pelvis height (m) that counts as standing in evaluation (home is ~0.9 m)
    min_pelvis_height=0.6,  # terminate below this pelvis height (m)
    min_head_height=0.5,  # terminate below this head height (m)
    max_tilt=0.7,  # terminate when the pelvis tilts more than this (rad) from its home attitude
    height_sigma=0.08,  # width (m) of the standing-height reward bump around home height
    posture_sigma=0.5,  # width (rad) of the posture reward around the home pose
    target_speed=2.5,  # walking/running speed (m/s) above which the speed reward stops growing
)

TREX_STAGES = species_stages("trex", TREX, (
    dict(push_speed=0.4),  # (m/s) stage-1 pushes: zero action stands 5% of episodes (31% at 0.4 m/s every 2 s)
    dict(gate=dict(min=dict(forward_speed_mean=2.0))),
    dict(tip_sites=("jaw_tip",),  # bite: the jaw tip must reach the prey
         success_radius=0.35,  # (m)
         target_height=(0.6, 1.2)),  # range (m) of the prey's height above the floor (the jaw is ~1.0 m up)
))
