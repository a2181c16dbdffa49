"""Brachiosaurus: its body settings (what differs from BODY in configs/stages.py), shared by its three stages, and
the stage configs built from them."""

from configs.stages import species_stages

BRACHIOSAURUS = dict(
    model="brachiosaurus.xml",  # MJCF file under models/
    init_log_std=-1.5,  # initial log std of the policy (std 0.22): under 0.6 its 21 joints' penalties outweigh standing
    action_noise_correlation=0.9,  # explore without step-to-step jitter: white noise's jitter held it up, not its mean
    standing_height=0.9,  # pelvis height (m) that counts as standing in evaluation
    min_pelvis_height=0.7,  # terminate below this pelvis height (m)
    min_head_height=1.2,  # terminate below this head height (m)
    max_tilt=0.6,  # terminate when the pelvis tilts more than this (rad) from its home attitude
    height_sigma=0.1,  # width (m) of the standing-height reward bump around home height
    target_speed=1.0,  # walking speed (m/s) above which the speed reward stops growing
    reward_weights=dict(torque=-1e-8),  # a hundredth of the default: at -1e-7 the torque penalty outweighed standing
    randomize=dict(payload=(-9.0, 9.0)),  # the species' tuned payload (kg) on the pelvis, ~5% of its 176 kg
)

BRACHIOSAURUS_STAGES = species_stages("brachiosaurus", BRACHIOSAURUS, (
    dict(push_speed=(1.2, 1.6),  # the species' tuned stage-1 push speeds (m/s): zero action and noise fail the gate
         desired_kl=0.01, anneal_lr=False,  # at 3e-4 its updates ran at a KL of 0.11, 0.58 of the ratios clipped
         reward_weights=dict(posture=0.1),  # as stage 2's: at 0.5 it narrowed the wide stance that holds 1.5x pushes
         # the gate's stress test: it also stands 0.8 with every push at 2.4 m/s (1.5x the top)
         gate=dict(stress=dict(settings=dict(push_speed=2.4), min=dict(success_rate=0.8)))),
    dict(command=dict(forward=(-0.3, 1.2), lateral=(-0.2, 0.2), yaw_rate=(-0.4, 0.4)),  # stage 2: it walks 1.5 m/s
         # turning paid twice the default: at 0.5 its wide stance turned at 0.38 of a commanded yaw rate, at 1.0 1.02
         reward_weights=dict(command_turn=1.0)),
    dict(tip_sites=("head_tip",),  # food reach: the head tip must reach the food
         success_radius=0.6,  # tip-to-target distance (m) that counts as reached
         target_distance=(1.5, 5.0),  # range (m) of the food's distance ahead: the neck reaches ~2 m ahead of the hips
         target_height=(2.7, 3.4),  # range (m) of the food's height: above the standing head tip (~2.5 m)
         approach_command=1.0),  # observe a command to walk to the food at up to 1 m/s (stage 2 learned 1.2)
))
