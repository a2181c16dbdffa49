"""Velociraptor: body settings shared by its three stages, and the stage configs built from them (configs/stages.py)."""

from configs.stages import species_stages

VELOCIRAPTOR = dict(
    model="velociraptor.xml",  # MJCF file under models/
    sim_dt=0.004,  # physics timestep (s); overrides the MJCF option
    ctrl_dt=0.02,  # control period (s): 50 Hz, 5 physics substeps per env step
    action_scale=0.5,  # action +-1 reaches this fraction of the way from home to each joint limit
    init_log_std=-1.5,  # exploration std 0.22 at first: under the default 0.6 the light body toppled in ~20 steps
    reset_joint_noise=0.05,  # uniform noise (rad) on joint angles at reset
    reset_yaw=True,  # random heading at reset
    standing_height=0.42,  # pelvis height (m) that counts as standing in evaluation (home is ~0.5 m)
    min_pelvis_height=0.3,  # terminate below this pelvis height (m)
    min_head_height=0.25,  # terminate below this head height (m)
    max_tilt=0.7,  # terminate when the pelvis tilts more than this (rad) from its home attitude
    height_sigma=0.05,  # width (m) of the standing-height reward bump around home height
    posture_sigma=0.5,  # width (rad) of the posture reward around the home pose
    target_speed=3.0,  # running speed (m/s) above which the speed reward stops growing
)

VELOCIRAPTOR_STAGES = species_stages("velociraptor", VELOCIRAPTOR, (
    dict(push_speed=0.5),  # (m/s) stage-1 pushes: zero action stands 0% of episodes, 61% at 0.4 m/s
    dict(gate=dict(min=dict(forward_speed_mean=2.0))),
    dict(tip_sites=("l_claw_tip", "r_claw_tip"),  # strike: either foot's sickle claw must reach the prey
         success_radius=0.2,  # (m)
         target_height=(0.15, 0.45)),  # range (m) of the prey's height above the floor
))
