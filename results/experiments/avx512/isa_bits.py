"""Hash of 16 Velociraptor stage-2 envs' observations over 30 random steps, under the XLA_FLAGS of the shell."""
import sys, hashlib
sys.path.insert(0, ".")  # run from the repository root
import startup; startup.before_jax()
import jax, jax.numpy as jnp, numpy as np
import envs
from configs import get_config
env = envs.env_from_config("velociraptor_stage2", get_config("velociraptor_stage2"))
def roll(key):
    s = jax.vmap(env.reset)(jax.random.split(key, 16))
    def f(s, k):
        a = 0.3 * jax.random.normal(k, (16, env.action_size))
        s = jax.vmap(env.step, in_axes=(0, 0, None))(s, a, env.default_params)
        return s, s.obs
    return jax.lax.scan(f, s, jax.random.split(key, 30))[1]
o = np.asarray(jax.jit(roll)(jax.random.key(0)))
print(sys.argv[1], hashlib.sha256(o.tobytes()).hexdigest()[:16], o.sum())
