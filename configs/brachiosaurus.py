"""Brachiosaurus: body settings shared by its three stages, and the stage configs built from them
(configs/stages.py)."""

from configs.stages import species_stages

BRACHIOSAURUS = dict(
    model="brachiosaurus.xml",  # MJCF file under models/
    sim_dt=0.004,  # physics timestep (s); overrides the MJCF option
    ctrl_dt=0.02,  # control period (s): 50 Hz, 5 physics substeps per env step
    action_scale=0.5,  # action +-1 reaches this fraction of the way from home to each joint limit
    init_log_std=-1.5,  # exploration std 0.22 at first: at 0.6 the action-rate penalty of 21 joints outweighed standing
    reset_joint_noise=0.05,  # uniform noise (rad) on joint angles at reset
    reset_yaw=True,  # random heading at reset
    standing_height=0.9,  # pelvis height (m) that counts as standing in evaluation
    min_pelvis_height=0.7,  # terminate below this pelvis height (m)
    min_head_height=1.2,  # terminate below this head height (m)
    max_tilt=0.6,  # terminate when the pelvis tilts more than this (rad) from its home attitude
    height_sigma=0.1,  # width (m) of the standing-height reward bump around home height
    posture_sigma=0.5,  # width (rad) of the posture reward around the home pose
    target_speed=1.0,  # walking speed (m/s) above which the speed reward stops growing
    reward_weights=dict(torque=-1e-8),  # a hundredth of the T-Rex's: at -1e-7 standing cost more than it paid
)

BRACHIOSAURUS_STAGES = species_stages("brachiosaurus", BRACHIOSAURUS, (
    dict(push_speed=1.5),  # (m/s) stage-1 pushes: zero action stands 0%, with exploration noise 2% (97% at 0.9)
    dict(gate=dict(min=dict(forward_speed_mean=0.75))),
    dict(tip_sites=("head_tip",),  # food reach: the head tip must reach the food
         success_radius=0.6,  # (m)
         target_distance=(1.5, 5.0),  # food hangs closer than prey: the neck reaches ~2 m ahead of the hips
         target_height=(2.7, 3.4)),  # range (m) of the food's height: above the standing head tip (~2.5 m)
))
