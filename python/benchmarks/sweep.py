"""Sweep throughput, local threads against Ray tasks, 1 and 2 workers: points per minute.

    python3 python/benchmarks/sweep.py [--points N] [--ios N]

Each point is a run of the `slc-sata` preset shrunk to 128 blocks per plane, preconditioned
to steady state, then `--ios` random 4 KiB writes at depth 8 (about a second of one core at
the default). The grid spans GC policies and spare shares so points differ. Prints one line
per (backend, workers): wall seconds, points per minute, and the cost per point beyond the
simulation itself (against the mean single-thread point time).
"""

import argparse
import time

import ssdlab

BASE = """
[device]
preset = "slc-sata"
[device.geometry]
blocks_per_plane = 128
[precondition]
mode = "steady"
[[job]]
rw = "randwrite"
bs = "4KiB"
iodepth = 8
number_ios = {ios}
"""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=24)
    ap.add_argument("--ios", type=int, default=2000000)
    a = ap.parse_args()
    policies = ["greedy", "cost-benefit", "random", "fifo"]
    ops = [0.10, 0.15, 0.20, 0.25, 0.30, 0.40]
    grid = {"device.ftl.gc_policy": policies, "device.geometry.overprovisioning": ops}
    seeds = list(range(1, 1 + max(1, a.points // (len(policies) * len(ops)))))
    base = BASE.format(ios=a.ios)
    n = len(policies) * len(ops) * len(seeds)
    rows = {}
    for backend, workers in (("local", 1), ("local", 2), ("ray", 1), ("ray", 2)):
        if backend == "ray":
            import ray

            if ray.is_initialized():
                ray.shutdown()
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        t = time.monotonic()
        df = ssdlab.sweep(base, grid, seeds=seeds, backend=backend, threads=workers, progress=False)
        wall = time.monotonic() - t
        rows[(backend, workers)] = (wall, df)
        if backend == "ray":
            ray.shutdown()
        per_point = wall * workers / n
        print(f"{backend:5} workers={workers}: {n} points in {wall:6.1f} s = {60 * n / wall:6.1f} points/min ({per_point:.3f} s of a worker per point)", flush=True)
    ref = rows[("local", 1)][1]
    same = all(df.equals(ref) for _, df in rows.values())
    print(f"rows identical across backends and worker counts: {same}")


if __name__ == "__main__":
    main()
