import sys, os
sys.path.insert(0, os.getcwd())
import jax, jax.numpy as jnp, numpy as np
import envs, tasks
env = envs.make_env("trex_stage2", observe_position=True, observe_heading=True,
                    **{"reward_weights.tracking_position": 0.5, "reward_weights.tracking_heading": 0.5})
state = jax.jit(env.reset)(jax.random.key(3))
step = jax.jit(env.step)
names = [g["name"] for g in tasks.observation_layout(env.config, env.mj_model)]
lay = {g["name"]: g for g in tasks.observation_layout(env.config, env.mj_model)}
print(names)
pe = lay["position_error"]; he = lay["heading_error"]; cm = lay["command"]
for t in range(60):
    state = step(state, jnp.zeros(env.action_size))
    if t % 10 == 0 or state.terminated:
        print(t, "cmd", np.round(state.obs[cm["start"]:cm["stop"]], 2), "pos_err", np.round(state.obs[pe["start"]:pe["stop"]], 3),
              "head", np.round(state.obs[he["start"]:he["stop"]], 3), "r", round(float(state.info["reward/tracking_position"]), 3), state.data.userdata)
