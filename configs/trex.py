"""T-Rex: its body settings (what differs from BODY in configs/stages.py), shared by its three stages, and the stage
configs built from them."""

from configs.stages import species_stages

TREX = dict(
    model="trex.xml",  # MJCF file under models/
    standing_height=0.8,  # pelvis height (m) that counts as standing in evaluation (home is ~0.9 m)
    min_pelvis_height=0.6,  # terminate below this pelvis height (m)
    min_head_height=0.5,  # terminate below this head height (m)
    height_sigma=0.08,  # width (m) of the standing-height reward bump around home height
    target_speed=2.5,  # walking/running speed (m/s) above which the speed reward stops growing
    randomize=dict(payload=(-4.0, 4.0)),  # the species' tuned payload (kg) on the pelvis, ~5% of its 85 kg
)

TREX_STAGES = species_stages("trex", TREX, (
    dict(push_speed=(0.2, 0.4),  # the species' tuned stage-1 push speeds (m/s): zero action and noise fail the gate
         gate=dict(min_env_steps=3_000_000)),  # judged from 3M steps: it holds 1.5x pushes ~0.3 at 2M, 0.8-0.9 at 3.2M
    dict(command=dict(forward=(-0.5, 2.5), yaw_rate=(-1.0, 1.0),  # stage-2 commands: it walks 2.7 m/s
                      backward_share=0.25),  # a quarter more walks backward: with 1 in 6 it tipped back under them
         max_tilt=0.5,  # falls at 0.5 rad of tilt (0.7 elsewhere): with decoupled images 0.95-0.98 to the time limit
         symmetry_augmentation=True, symmetry_loss=1.0,  # mirror pairs: it tracked 0.25-0.26 m/s, not 0.28
         symmetry_ratio_from_image=True,  # each image's ratio from 1: 0.175-0.20 rad/s, not 0.21-0.22, std falls
         gamma=0.9875),  # ~80-step horizon: 0.217-0.229 m/s on two seeds (0.99: 0.249-0.251); seed 0 tips back more
    dict(tip_sites=("jaw_tip",),  # bite: the jaw tip must reach the prey
         success_radius=0.35,  # tip-to-target distance (m) that counts as reached
         target_height=(0.6, 1.2),  # range (m) of the prey's height above the floor (the jaw is ~1.0 m up)
         approach_command=2.0,  # observe a command to walk to the prey at up to 2 m/s (stage 2 learned 2.5)
         symmetry_augmentation=True, symmetry_loss=1.0,  # mirror pairs: it bit 1.00 of 128 (without: 0.97)
         symmetry_ratio_from_image=True,  # as in stage 2
         gate=dict(min_env_steps=3_000_000)),  # judged from 3M steps: gated at 1.0M it bit 0.945 of 128, at 3.5M 0.977
))
