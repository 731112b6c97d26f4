"""`make bench`: the analysis layer on 1,000,000 result rows, timed (a benchmark, not a test).

    python -m analysis.bench [--rows N] [--budget SECONDS]

A child process writes a collect-format CSV (a realistic study: 8 systems x 6 applications x
3 compilers x 3 MPIs x 2 fabrics x 5 bindings x 2 distributions x 6 node counts x 5 repeats, 4
FOMs each, 1 % failed experiments) to a temporary folder. This process then times what a user
runs on it: read + scaling + compare + one plot, and prints the seconds and its peak RSS (the
child's memory is not counted). Exit status 1 when the total is over the budget (10 s)."""

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.schema import EXTRA_COLUMNS, RESULT_COLUMNS

AXES = {  # dimension -> values, slowest-varying first; experiments are their product
    "system": [f"cloud-{i}" for i in range(8)],
    "application": ["gromacs", "namd", "lammps", "openfoam", "mpas", "hpcg"],
    "compiler": ["gcc", "intel", "cce"],
    "mpi": ["openmpi", "cray-mpich", "mpich"],
    "fabric": ["ofi", "ucx"],
    "binding": ["none", "threads", "cores", "sockets", "auto"],
    "distribution": ["block:block", "cyclic:cyclic"],
    "nodes": [1, 2, 4, 8, 16, 32],
    "repeat": [1, 2, 3, 4, 5],
}
FOMS = [("time", "s"), ("bandwidth", "GB/s"), ("rate", "Gflops"), ("latency", "usec")]


def generate(path, rows):
    """Write `rows` result rows in collect's format to path."""
    rng = np.random.default_rng(2024)
    sizes = [len(v) for v in AXES.values()]
    n_exp = -(-rows // len(FOMS))
    exp = np.arange(n_exp)
    digits, rest = {}, exp.copy()
    for (name, values), size in zip(reversed(AXES.items()), reversed(sizes)):
        digits[name] = np.asarray(values)[rest % size]
        rest //= size
    nodes = digits["nodes"]
    speed = rng.lognormal(0, 0.3, n_exp) * (1 + (exp % 7))
    noise = rng.normal(1, 0.02, (len(FOMS), n_exp))
    fom_values = [1000 / speed / nodes**0.9, 5 * speed, 50 * speed * nodes**0.95, 2 + 1 / speed]
    failed = rng.random(n_exp) < 0.01
    cols = {}
    cols["experiment"] = np.char.add("study.wl.exp-", exp.astype(str))
    for name in AXES:
        cols[name] = digits[name]
    frames = []
    for i, (metric, unit) in enumerate(FOMS):
        part = pd.DataFrame(cols)
        part["metric"], part["unit"] = metric, unit
        part["value"] = np.where(failed, np.nan, fom_values[i] * noise[i])
        frames.append(part)
    df = pd.concat(frames, ignore_index=True).iloc[:rows]
    failed_rows = df["value"].isna()
    df["status"] = np.where(failed_rows, "FAILED", "SUCCESS")
    df["status_reason"] = np.where(failed_rows, "Ramble status FAILED", "")
    df["workload"], df["dataset"], df["target"], df["filesystem"], df["variant"] = "wl", "", "zen4", "lustre", ""
    df["ranks"], df["threads"], df["context"] = df["nodes"] * 64, 1, ""
    df["spack_lock_hash"], df["project_commit"] = "a" * 64, "b" * 40
    df["spack_inputs_hash"], df["timestamp"] = "c" * 64, "2024-06-01T12:00:00Z"
    df[RESULT_COLUMNS + EXTRA_COLUMNS].to_csv(path, index=False)


def run(path, png):
    """The timed pipeline; returns [(step, seconds)]."""
    from analysis import compare, directions, files, plot, scaling

    times, t0 = [], time.perf_counter()

    def step(name):
        nonlocal t0
        now = time.perf_counter()
        times.append((name, now - t0))
        t0 = now

    df = files.read_results(path)
    step("read")
    direction = directions.resolve("time", "s", path)
    scaled = scaling.scaling(df, "time", direction, path)
    step("scaling")
    compare.compare(df, "time", "mpi", "openmpi", "cray-mpich", direction, path)
    step("compare")
    by = scaling.default_by(df[df["metric"] == "time"], "nodes")
    files.atomic_write(png, plot.scaling_figure(scaled, by))
    step("plot")
    return times


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m analysis.bench", description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--budget", type=float, default=10.0, help="seconds (default: %(default)s)")
    ap.add_argument("--generate", metavar="CSV", help=argparse.SUPPRESS)  # the child's job
    args = ap.parse_args(argv)
    if args.generate:
        generate(args.generate, args.rows)
        return 0
    with tempfile.TemporaryDirectory(prefix="hpcaas-bench-") as tmp:
        csv = Path(tmp) / "results.csv"
        print(f"generating {args.rows:,} rows in {csv} ...", flush=True)
        subprocess.run(
            [sys.executable, "-m", "analysis.bench", "--generate", str(csv), "--rows", str(args.rows)], check=True
        )
        print(f"{csv.stat().st_size / 1e6:.0f} MB; timing read + scaling + compare + plot", flush=True)
        times = run(str(csv), Path(tmp) / "scaling.png")
    total = sum(t for _, t in times)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for name, seconds in times:
        print(f"  {name:8s} {seconds:6.2f} s")
    verdict = "within" if total <= args.budget else "OVER"
    print(f"total {total:.2f} s ({verdict} the {args.budget:g} s budget), peak RSS {peak_mb:.0f} MB")
    return 0 if total <= args.budget else 1


if __name__ == "__main__":
    sys.exit(main())
