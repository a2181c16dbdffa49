"""Fetch, here (where pip reaches a registry), the wheels this project needs on a lent GPU machine whose image has no
network, packed into call-sized bundles. The image ('cuda': Python 3.12, jax 0.11.2 with jax-cuda13-plugin, chex,
etils, orbax-checkpoint, scipy, imageio, ...) keeps its own jax; only what it lacks is fetched.

    python benchmarks/gpu_wheels.py            # into .whl/1, .whl/2, ... (git ignores .whl/)
    python benchmarks/gpu_wheels.py --warp     # also MuJoCo Warp, for mjx_impl=warp

A device call carries at most 64 MiB, the working tree that travels included, so the wheels go in bundles that each
fit beside the tree; a wheel bigger than that (warp-lang: ~149 MB) is split into parts, a bundle each. Then, one call
per bundle, one right after another (a machine stays warm only 30 s after a call; a fresh one starts bare):
carry [".whl/N"] and run `source benchmarks/gpu_install.sh && ...`; it installs what the call carried into
/tmp/site, joining parts once all have come, and every later call starts with the same `source`. The script prints
these calls.

What is fetched: the pins of requirements.txt except jax (the image's 0.11.2 serves) and flax: flax 0.12.6 calls
jax.core.get_opaque_trace_state, removed in jax 0.11 (AttributeError at the first network init), and 0.12.7 is the
first release that works there; then what those wheels require (Requires-Dist) that the image lacks, read from
their METADATA and checked against the image's package list (/work/.library/device/KINDS.md), 2026-11-23:
mujoco needs glfw, pyopengl, websockets; mujoco-mjx needs trimesh; distrax needs tfp-nightly, which needs decorator,
gast and dm-tree; flax and optax need nothing more. mujoco-warp 3.17.0 needs warp-lang (>= 1.15).
"""

import argparse
import glob
import os
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WHEELS = ["mujoco==3.17.0", "mujoco-mjx==3.17.0", "distrax==0.1.9", "flax==0.12.7", "optax==0.2.8",
          "glfw==2.11.0", "pyopengl==3.1.10", "websockets==17.4", "trimesh==5.2.0",
          "tfp-nightly==0.26.0.dev20261027", "decorator==5.3.1", "gast==0.7.0", "dm-tree==0.1.10"]
WARP_WHEELS = ["mujoco-warp==3.17.0", "warp-lang==1.19.0"]
PLATFORMS = ["manylinux_2_28_x86_64", "manylinux_2_27_x86_64", "manylinux_2_24_x86_64", "manylinux_2_17_x86_64",
             "manylinux2014_x86_64", "manylinux1_x86_64"]
CALL_LIMIT = 64 * 2**20  # bytes a device call carries, working tree included
MARGIN = 2 * 2**20  # room for the tree to grow a little between now and the calls


def download(specs, folder):
    """Wheels for the device's Python 3.12 on x86-64 Linux, without dependencies (each is named above)."""
    platforms = [arg for platform in PLATFORMS for arg in ("--platform", platform)]
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    "--python-version", "3.12", "--implementation", "cp", *platforms, "-d", folder, *specs],
                   check=True)
    return glob.glob(os.path.join(folder, "*.whl"))


def travelling_tree_bytes():
    """Bytes of what a device call sends besides its carried paths: tracked and untracked-not-ignored files."""
    names = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                           check=True, capture_output=True).stdout.decode().split("\0")
    return sum(os.path.getsize(os.path.join(ROOT, n)) for n in names if n and os.path.isfile(os.path.join(ROOT, n)))


def pack(wheels, capacity):
    """Bundles of at most `capacity` bytes, as [(file name, (wheel, offset, length))]: largest wheel first into the
    first bundle with room; a wheel over `capacity` is split into parts NAME.partKKofNN, a bundle each."""
    bundles, used = [], []
    for wheel in sorted(wheels, key=os.path.getsize, reverse=True):
        name, size = os.path.basename(wheel), os.path.getsize(wheel)
        if size > capacity:
            count = -(-size // capacity)
            for k in range(count):
                length = min(capacity, size - k * capacity)
                bundles.append([(f"{name}.part{k + 1:02d}of{count:02d}", (wheel, k * capacity, length))])
                used.append(capacity)  # nothing else joins a part
            continue
        i = next((i for i, u in enumerate(used) if u + size <= capacity), len(bundles))
        if i == len(bundles):
            bundles.append([])
            used.append(0)
        bundles[i].append((name, (wheel, 0, size)))
        used[i] += size
    return bundles


def write_bundles(bundles, out):
    """Each bundle's files into out/1, out/2, ..."""
    for number, files in enumerate(bundles, start=1):
        os.makedirs(os.path.join(out, str(number)))
        for name, (wheel, offset, length) in files:
            with open(wheel, "rb") as source, open(os.path.join(out, str(number), name), "wb") as target:
                source.seek(offset)
                target.write(source.read(length))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warp", action="store_true", help="also MuJoCo Warp (mujoco-warp, warp-lang)")
    parser.add_argument("--out", default=os.path.join(ROOT, ".whl"), help="bundle folder (git must ignore it)")
    args = parser.parse_args()
    if not subprocess.run(["git", "check-ignore", "-q", args.out + "/"], cwd=ROOT).returncode == 0:
        sys.exit(f"error: git does not ignore {args.out}/, so it would travel with every call; add it to .gitignore")
    tree = travelling_tree_bytes()
    capacity = CALL_LIMIT - tree - MARGIN
    if capacity < 8 * 2**20:
        sys.exit(f"error: the working tree that travels is {tree / 2**20:.0f} MiB: too little of a call's 64 MiB is "
                 f"left for wheels; for the calls take results/ out of the index (`git rm -r -q --cached results && "
                 f"echo /results/ >> .git/info/exclude`; README, On a GPU, puts it back) or see `git ls-files`")
    for old in glob.glob(os.path.join(args.out, "*")):  # an earlier run's: two versions of a package stop an install
        shutil.rmtree(old) if os.path.isdir(old) else os.remove(old)
    downloaded = os.path.join(args.out, "downloaded")
    wheels = download(WHEELS + (WARP_WHEELS if args.warp else []), downloaded)
    bundles = pack(wheels, capacity)
    write_bundles(bundles, args.out)
    shutil.rmtree(downloaded)
    print(f"working tree that travels: {tree / 2**20:.1f} MiB; wheels: "
          f"{sum(length for files in bundles for _, (_, _, length) in files) / 2**20:.1f} MiB in {len(bundles)} "
          f"bundle(s) of at most {capacity / 2**20:.1f} MiB")
    for number, files in enumerate(bundles, start=1):
        size = sum(length for _, (_, _, length) in files)
        print(f"call {number}: carry [\".whl/{number}\"] ({size / 2**20:.1f} MiB: {', '.join(n for n, _ in files)})")
    print("each call's command starts with: source benchmarks/gpu_install.sh &&  (calls one right after another; later"
          " calls carry nothing and start the same way)")


if __name__ == "__main__":
    main()
