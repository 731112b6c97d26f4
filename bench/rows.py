"""The analysis of 1,000,000 result rows: read + scaling (efficiency) + compare (ratios) + one
plot, as a user runs them on a large study's results.csv.

A child process writes a collect-format CSV (8 systems x 6 applications x 3 compilers x 3 MPIs x
2 fabrics x 5 bindings x 2 distributions x 6 node counts x 5 repeats, 4 FOMs each, 1 % failed).
Each timed run is a fresh process (python -m bench.rows CSV) that imports what the commands
import (analysis/; Polars comes with the first read, matplotlib with the first plot) and times
each step in wall and CPU seconds (the CPU of all its threads: on a shared machine the steadier
figure). Its peak RSS is the analysis' own (Polars allocates outside Python's allocator, so
tracemalloc would not see the reader). The first run parses the file and keeps its frame
(analysis/readcache.py, in the bench's own temporary cache); the next runs load it. The target
(issue 32) is the first run's whole time, imports included."""

import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

from analysis.schema import EXTRA_COLUMNS, RESULT_COLUMNS
from bench.record import Figure

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
LIMIT_S = 1.5  # issue 32: the first analysis in a new process, imports included


def generate(path, rows):
    """Write `rows` result rows in collect's format to path."""
    import numpy as np  # here: the timed process imports them as the analysis does
    import pandas as pd

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
    cols = {"experiment": np.char.add("study.wl.exp-", exp.astype(str))}
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
    for column in RESULT_COLUMNS + EXTRA_COLUMNS:  # the schema's other columns, left empty as collect leaves them
        if column not in df:
            df[column] = ""
    df[RESULT_COLUMNS + EXTRA_COLUMNS].to_csv(path, index=False)


def pipeline(path, png) -> dict:
    """The timed steps in this process: {"times": {step: wall s}, "cpu": {step: CPU s}, and
    "plotting_before_plot": whether matplotlib was imported before the plot step}, imports first."""
    times, cpu = {}, {}
    t0, c0 = time.perf_counter(), time.process_time()

    def step(name):
        nonlocal t0, c0
        now, now_cpu = time.perf_counter(), time.process_time()
        times[name], cpu[name] = now - t0, now_cpu - c0
        t0, c0 = now, now_cpu

    from analysis import compare, directions, files, plot, scaling

    step("imports")
    df = files.read_results(path)
    step("read")
    direction = directions.resolve("time", "s", path)
    scaled = scaling.scaling(df, "time", direction, path)
    step("scaling")
    compare.compare(df, "time", "mpi", "openmpi", "cray-mpich", direction, path)
    step("compare")
    plotting_before_plot = "matplotlib" in sys.modules
    by = scaling.default_by(df[df["metric"] == "time"], "nodes")
    files.atomic_write(png, plot.scaling_figure(scaled, by))
    step("plot")
    return {"times": times, "cpu": cpu, "plotting_before_plot": plotting_before_plot}


def _run(csv: Path, folder: Path, env) -> dict:
    """One analysis in a new process: its steps, and the whole process as the user waits for it
    (the interpreter's start included), wall and CPU."""
    before, t0 = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "bench.rows", str(csv), str(folder / "scaling.png")],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    wall, after = time.perf_counter() - t0, resource.getrusage(resource.RUSAGE_CHILDREN)
    result = json.loads(out.stdout)
    result["process_wall"] = wall
    result["process_cpu"] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return result


def measure(folder: Path, rows=1_000_000, repeats=3) -> list:
    """Figures of the first analysis of a new file in a new process (imports, parse, its frame
    kept: analysis/readcache.py) and of the next ones (median of `repeats`), each in a fresh
    process with a cache of its own: each step, wall and CPU, the peak RSS."""
    csv = folder / "results.csv"
    subprocess.run([sys.executable, "-m", "bench.rows", "--generate", str(csv), str(rows)], check=True)
    env = {**os.environ, "HPCAAS_CACHE": str(folder / "cache")}
    first = _run(csv, folder, env)
    runs = [_run(csv, folder, env) for _ in range(repeats)]
    steps = ["imports", "read", "scaling", "compare", "plot"]
    cmd = f"python -m bench.rows (a new process: first, then the median of {repeats})"
    label = f"analysis {rows:,} rows"
    whole = "imports+read+scaling+compare+plot"
    figures = [
        Figure(f"{label}, first, a new process: {whole}", first["process_wall"], "s", LIMIT_S, cmd),
        Figure(f"{label}, first: the same in CPU seconds", first["process_cpu"], "s", None, cmd),
    ]
    for step in steps:
        figures.append(Figure(f"    first: {step}", first["times"][step], "s", None, cmd))
        figures.append(Figure(f"    first: {step}, CPU", first["cpu"][step], "s", None, cmd))
    total = statistics.median(r["process_wall"] for r in runs)
    figures.append(Figure(f"{label}, next, a new process: {whole}", total, "s", LIMIT_S, cmd))
    figures.append(
        Figure(f"{label}, next: the same in CPU seconds", statistics.median(r["process_cpu"] for r in runs), "s")
    )
    for step in steps:
        for kind, suffix in (("times", ""), ("cpu", ", CPU")):
            median = statistics.median(r[kind][step] for r in runs)
            figures.append(Figure(f"    next: {step}{suffix}", median, "s", None, cmd))
    figures.append(Figure(f"{label}: peak RSS", max(r["maxrss_mb"] for r in [first, *runs]), "MB", None, cmd))
    early = sum(r["plotting_before_plot"] for r in [first, *runs])
    figures.append(Figure(f"{label}: runs with matplotlib imported before the plot", early, "", 0, cmd))
    figures.append(Figure(f"{label}: CSV size", csv.stat().st_size / 1e6, "MB", None, cmd))
    return figures


def main(argv) -> int:
    if argv[0] == "--generate":
        generate(argv[1], int(argv[2]))
        return 0
    out = pipeline(argv[0], Path(argv[1]))
    out["maxrss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
