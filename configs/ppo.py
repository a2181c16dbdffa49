"""PPO hyperparameters shared by every environment; an env config starts from these and may override any of them.

Defaults are sized for one GPU (4096 envs). On a machine without an accelerator the command line replaces the keys
of CPU_DEFAULTS (printing one line that says so); explicit flags win over both.
"""

PPO = dict(
    num_envs=4096,  # parallel MJX environments stepped together (the vmap batch)
    num_steps=20,  # rollout length per env per update; batch = num_envs * num_steps transitions
    total_timesteps=20_000_000,  # env steps over the whole run; num_updates = total // batch
    update_epochs=4,  # passes over each batch
    num_minibatches=32,  # minibatches per epoch; must divide num_envs * num_steps
    lr=3e-4,  # Adam learning rate
    anneal_lr=True,  # linearly decay the learning rate to 0 over the run
    desired_kl=0.0,  # > 0: adapt the lr to keep each minibatch's KL near this (rsl_rl's schedule; anneal_lr=False)
    gamma=0.97,  # discount factor (horizon ~33 control steps = 0.7 s at 50 Hz)
    gae_lambda=0.95,  # GAE bias/variance trade-off
    clip_eps=0.2,  # PPO ratio clip
    ent_coef=1e-3,  # entropy bonus weight
    vf_coef=0.5,  # value loss weight
    max_grad_norm=1.0,  # global-norm gradient clip
    actor_hidden=(256, 256),  # policy MLP layer sizes (tanh)
    critic_hidden=(256, 256),  # value MLP layer sizes (tanh)
    symmetry_augmentation=False,  # also train on each sample's left-right mirror image (env.mirror; rsl_rl's)
    symmetry_loss=0.0,  # weight of the mean action's squared gap to its mirror image's (with augmentation or alone)
    symmetry_ratio_from_image=False,  # augmented: an image's PPO ratio starts at 1, its surrogate importance-weighted
    privileged_critic=False,  # the critic also reads what only training knows (critic.CRITIC_GROUPS); the policy never
    init_log_std=-0.5,  # initial log std of the Gaussian policy (std ~0.6 in action units)
    action_noise_correlation=0.0,  # exploration noise's AR(1) coefficient in time: 0 white, 0.9 drifts over ~10 steps
    normalize_obs=True,  # running mean/var observation normalization (statistics saved with the params)
    log_every=10,  # print progress every this many updates (rounded down to a divisor of the number of updates)
    checkpoint_every=50,  # write checkpoint.msgpack every this many updates (and at the end, and on Ctrl-C)
    eval_episodes=64,  # evaluation episodes run at the end of training (and at each curriculum gate)
    eval_actions="mean",  # evaluations act with the Gaussian's "mean" (what a user deploys) or "sampled" actions
)

# Sized for a 2-core CPU: a run or a curriculum stage in minutes, not hours.
CPU_DEFAULTS = {
    "num_envs": 256,  # parallel environments on a CPU
    "total_timesteps": 2_000_000,  # env steps per run
    "eval_episodes": 32,  # episodes of the final and of each gate evaluation
    "gate.eval_every": 40,  # updates between gate evaluations (~200k env steps at 256 envs)
    "log_every": 5,  # a progress line every ~5 s: the first comes sooner (chunks train the same numbers)
}
# A curriculum stage ends when its gate passes; its budget is only the cap for a stage that does not pass.
CPU_CURRICULUM_DEFAULTS = dict(
    CPU_DEFAULTS,
    total_timesteps=5_000_000,  # env steps per stage at most
    num_minibatches=8,  # minibatches per epoch, 640 samples each at 256 envs (the GPU's 32 overshoot there)
)
