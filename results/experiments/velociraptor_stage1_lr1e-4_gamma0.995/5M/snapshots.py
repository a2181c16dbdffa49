"""Copy each member's checkpoint when it reaches given updates (the curriculum's gate floors)."""
import os, shutil, sys, time
sys.path.insert(0, "/work/main")
import runs
G = sys.argv[1]; targets = [int(x) for x in sys.argv[2].split(",")]
done = set()
while len(done) < 3 * len(targets):
    for s in range(3):
        p = os.path.join(G, f"seed{s}", "checkpoint.msgpack")
        if not os.path.exists(p): continue
        try:
            n = len(runs.read_checkpoint(p)["rows"])
        except Exception:
            continue
        for t in targets:
            dst = os.path.join(G, f"snap_seed{s}_update{t}")
            if n == t and (s, t) not in done:
                os.makedirs(dst, exist_ok=True)
                shutil.copy(os.path.join(G, f"seed{s}", "config.json"), dst)
                shutil.copy(p, dst + "/checkpoint.msgpack.tmp"); os.replace(dst + "/checkpoint.msgpack.tmp", dst + "/checkpoint.msgpack")
                done.add((s, t)); print("copied", s, t, flush=True)
            if n > t and (s, t) not in done:
                print("missed", s, t, n, flush=True); done.add((s, t))
    time.sleep(20)
