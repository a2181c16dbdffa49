"""Velociraptor: its body settings (what differs from BODY in configs/stages.py), shared by its three stages, and the
stage configs built from them."""

from configs.stages import species_stages

VELOCIRAPTOR = dict(
    model="velociraptor.xml",  # MJCF file under models/
    init_log_std=-1.5,  # initial log std of the policy (std 0.22): the light body topples under the default 0.6
    standing_height=0.42,  # pelvis height (m) that counts as standing in evaluation (home is ~0.5 m)
    min_pelvis_height=0.3,  # terminate below this pelvis height (m)
    min_head_height=0.25,  # terminate below this head height (m)
    height_sigma=0.05,  # width (m) of the standing-height reward bump around home height
    target_speed=3.0,  # running speed (m/s) above which the speed reward stops growing
    randomize=dict(payload=(-0.7, 0.7)),  # the species' tuned payload (kg) on the pelvis, ~5% of its 13.5 kg
)

VELOCIRAPTOR_STAGES = species_stages("velociraptor", VELOCIRAPTOR, (
    dict(push_speed=(0.25, 0.6),  # the species' tuned stage-1 push speeds (m/s): zero action and noise fail the gate
         lr=1e-4,  # at 3e-4 a third of its ratios clipped and it held 1.5x pushes 0.08-0.41; 1e-4 with 0.995: 0.56-0.95
         gamma=0.995,  # horizon ~200 steps (4 s): the recovery from a hard push pays past the next one
         # the gate's stress test: it also stands 0.8 with every push at 0.9 m/s (1.5x the top)
         gate=dict(stress=dict(settings=dict(push_speed=0.9), min=dict(success_rate=0.8)),
                   min_env_steps=2_457_600)),  # judged from update 480 on the CPU: it held 1.5x 0.09-0.56 before 2.2M
    dict(command=dict(forward=(-0.5, 2.5), yaw_rate=(-1.0, 1.0)),  # stage-2 commands: it runs 2.8 m/s
         # the four below, at gamma 0.99, yaw weight 0.5: 0.23-0.25 m/s, 0.28-0.34 rad/s on two seeds (were 0.37, 0.54)
         symmetry_augmentation=True, symmetry_loss=1.0,  # mirror pairs, as the T-Rex's
         symmetry_ratio_from_image=True,  # each image's ratio from 1, as the T-Rex's
         max_tilt=0.5,  # falls at 0.5 rad of tilt (0.7 elsewhere), as the T-Rex's stage 2
         # paid linear in the errors the gate averages: without them 0.27 m/s, 0.36 rad/s at gamma 0.99
         reward_weights=dict(tracking_lin_vel_linear=1.0, tracking_yaw_rate_linear=1.0,
                             termination=-50.0),  # a fall costs what the shorter horizon stops counting (default -10)
         gamma=0.9875,  # ~80-step horizon: 0.24 m/s, 0.24-0.28 rad/s on two seeds (0.99: 0.27 m/s; 0.985: falls)
         gate=dict(min_env_steps=2_048_000)),  # judged from update 400: it tracked 0.30-0.93 m/s, 0.44-0.62 before
    dict(tip_sites=("l_claw_tip", "r_claw_tip"),  # strike: either foot's sickle claw must reach the prey
         success_radius=0.2,  # tip-to-target distance (m) that counts as reached
         target_height=(0.15, 0.45),  # range (m) of the prey's height above the floor
         warm_start_log_std=-1.5,  # std 0.22 as in stage 1: at the default 0.37 its strikes fell
         approach_command=2.0,  # observe a command to walk to the prey at up to 2 m/s (stage 2 learned 2.5)
         max_tilt=0.9,  # its kicks at high prey lean back past 0.7 rad: 3 seeds struck 0.93 / 0.90 there, 0.95 / 0.95
         symmetry_augmentation=True, symmetry_loss=1.0,  # mirror pairs as in stage 2: it struck 0.86 / 0.89 (without:
         symmetry_ratio_from_image=True,  # 0.86 / 0.77, MJX / MuJoCo) from that stage 2
         gate=dict(min_env_steps=2_457_600)),  # judged from update 480: it struck 0.25-0.81 before, 0.97 first at 4.7M
))
