"""`make dry-run` per experiment at 10, 100 and 1000 experiments of one study.

The study is the smoke study rendered for this machine (`hpcaas render smoke local`, as make
dry-run does) with one more matrix variable, bench_point, so it has N experiments: N / (the
system's MPIs) points per MPI. Timed: the render plus `ramble workspace setup --dry-run`, in a
temporary folder (the study's own workspace and dry-runs/ are not touched).

Per experiment, the cost at N includes the fixed part (Ramble's start, the two Spack
environments), which fades as N grows; whether the cost of one more experiment grows with N is
the marginal cost between sizes: (T(N2) - T(N1)) / (N2 - N1)."""

from pathlib import Path

import yaml

from bench import shell
from bench.record import Figure

STUDY, SYSTEM = "smoke", "local"


def _variant(config: Path, n: int) -> int:
    """Make the rendered workspace's one experiment template into n experiments; return how many."""
    doc = yaml.safe_load(config.read_text())
    workloads = doc["ramble"]["applications"]["hpcc"]["workloads"]
    ((name, exp),) = workloads["sized"]["experiments"].items()
    mpis = exp["variables"]["mpi"]
    per_mpi = -(-n // len(mpis))
    exp["variables"]["n_ranks"] = exp["variables"]["n_ranks"][:1]
    exp["variables"]["bench_point"] = [str(i) for i in range(per_mpi)]
    exp["matrix"] = ["mpi", "bench_point"]
    workloads["sized"]["experiments"] = {name + "-{bench_point}": exp}
    config.write_text(yaml.safe_dump(doc, sort_keys=False, width=1000))
    return per_mpi * len(mpis)


def time_one(folder: Path, n: int) -> tuple:
    """(experiments generated, wall s, cpu s) of render + dry-run setup of an n-experiment variant."""
    ws = folder / f"dry-run-{n}"
    render = shell.run(f"hpcaas render {STUDY} {SYSTEM} --out {ws} >/dev/null")
    expected = _variant(ws / "configs" / "ramble.yaml", n)
    setup = shell.run(f"ramble -D {ws} workspace setup --dry-run", log=folder / f"dry-run-{n}.log")
    made = sum(1 for _ in (ws / "experiments").rglob("execute_experiment"))
    if made != expected:
        raise RuntimeError(f"{ws}: {made} experiments generated, {expected} expected (log: {folder}/dry-run-{n}.log)")
    return made, render.wall + setup.wall, render.cpu + setup.cpu


def measure(folder: Path, sizes=(10, 100)) -> list:
    cmd = "hpcaas render smoke local + ramble workspace setup --dry-run"
    points = [time_one(folder, n) for n in sizes]  # (n, wall, cpu)
    figures = []
    for n, wall, cpu in points:
        figures.append(Figure(f"dry-run {n} experiments: wall per experiment", wall / n, "s", None, cmd))
        figures.append(Figure(f"dry-run {n} experiments: CPU per experiment", cpu / n, "s", None, cmd))
    marginal = [(c2 - c1) / (n2 - n1) for (n1, _, c1), (n2, _, c2) in zip(points, points[1:])]
    for ((n1, _, _), (n2, _, _)), cost in zip(zip(points, points[1:]), marginal):
        figures.append(Figure(f"dry-run one more experiment {n1}->{n2}: CPU", cost, "s", None, cmd))
    if len(points) >= 2:  # the 'flat within 2x', as the per-experiment cost
        (n0, _, c0), (n_last, _, c_last) = points[0], points[-1]
        figures.append(
            Figure(f"dry-run CPU per experiment at {n_last} / at {n0}", (c_last / n_last) / (c0 / n0), "x", 2.0, cmd)
        )
    if len(marginal) >= 2:  # and as the cost of one more experiment, which the fixed part does not hide
        figures.append(
            Figure("dry-run one more experiment: last / first step", marginal[-1] / marginal[0], "x", 2.0, cmd)
        )
    return figures
