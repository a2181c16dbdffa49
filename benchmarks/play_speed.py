"""How much faster than real time play.py runs each committed exported policy on one CPU core, and the policy's
inference time per control step (onnxruntime, one thread).

    python benchmarks/play_speed.py        # writes results/play_speed_cpu.json and results/play_speed_cpu.md

The process is pinned to one core first; every stage of the three committed curricula plays EPISODES episodes from
SEED, headless, without JAX (play.play_episodes: the policy, the NumPy observation and rewards, MuJoCo's steps).
"""

import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core, before onnxruntime starts any thread

import files  # noqa: E402
import play  # noqa: E402
from benchmarks import SPECIES, curriculum_folder  # noqa: E402

EPISODES, SEED = 8, 0


def main():
    load = os.getloadavg()[0]  # the machine's 1-minute load average before: a shared machine plays slower
    rows = []
    for species in SPECIES:
        for stage in (1, 2, 3):
            folder = os.path.join(curriculum_folder(os.path.join(ROOT, "results"), species), f"{species}_stage{stage}")
            summary, _ = play.play_episodes(play.load_exported(folder), EPISODES, SEED)
            rows.append({k: summary[k] for k in ("env", "episodes", "steps", "wall_s", "realtime_factor",
                                                 "inference_us_per_step")})
            print(f"{rows[-1]['env']:>20}: {rows[-1]['realtime_factor']:.0f}x real time, "
                  f"{rows[-1]['inference_us_per_step']:.0f} us per policy call")
    record = dict(command="python benchmarks/play_speed.py", date=time.strftime("%Y-%m-%d"), cores=1,
                  machine=files.host(["mujoco", "onnxruntime", "numpy"]), load_average_before=round(load, 2),
                  load_average_after=round(os.getloadavg()[0], 2), runs=rows)
    files.atomic_write(os.path.join(ROOT, "results", "play_speed_cpu.json"), json.dumps(record, indent=1) + "\n")
    lines = [f"# play.py speed on one CPU core ({record['machine']['cpu']}, {record['date']})", "",
             f"`{record['command']}`: {EPISODES} headless episodes per stage from seed {SEED}, mean actions, "
             f"onnxruntime {record['machine']['versions']['onnxruntime']} on one thread, "
             f"MuJoCo {record['machine']['versions']['mujoco']}, no JAX. The machine's 1-minute load average "
             f"(runnable processes on its {record['machine']['cpu_count']} cores, this one about 1 of them): "
             f"{record['load_average_before']:g} before, {record['load_average_after']:g} after.", "",
             "| env | control steps | wall (s) | x real time | policy call (us) |", "|---|---|---|---|---|"]
    lines += [f"| {r['env']} | {r['steps']} | {r['wall_s']:.1f} | {r['realtime_factor']:.0f} | "
              f"{r['inference_us_per_step']:.0f} |" for r in rows]
    files.atomic_write(os.path.join(ROOT, "results", "play_speed_cpu.md"), "\n".join(lines) + "\n")
    print("wrote results/play_speed_cpu.json and results/play_speed_cpu.md")


if __name__ == "__main__":
    main()
