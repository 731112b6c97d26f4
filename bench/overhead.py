"""Ramble's overhead on a run: the wall time of the smoke study's `ramble on` over the sum of
its experiments' own run times.

An experiment's own run is its launch line (mpirun + HPCC), read from its outputs: it starts
when execute_experiment writes hpccinf.txt (HPCC's input, the line before the launch) and ends
with HPCC's last write to hpccoutf.txt. The rest of each execute_experiment (setting up the
environment: `spack env activate` of the experiment's Spack environment, which Ramble's spack
package manager writes into every script) is reported apart, as is what is left of `ramble on`
(Ramble's start, reading the workspace, its bookkeeping around each experiment)."""

from pathlib import Path

import yaml

from bench import shell
from bench.record import Figure
from hpcaas.run.place import Place

STUDY = "smoke"


def _experiments(ws: Path) -> list:
    return sorted(p.parent for p in (ws / "experiments").rglob("execute_experiment"))


def own_run(exp: Path) -> tuple:
    """(script start, launch start, end) of one experiment from its files' times: the script
    truncates <name>.out first (empty when the launch writes nothing to stdout, as HPCC's), then
    writes hpccinf.txt; HPCC writes hpccoutf.txt to its end."""
    out, inp, result = exp / f"{exp.name}.out", exp / "hpccinf.txt", exp / "hpccoutf.txt"
    for f in (out, inp, result):
        if not f.is_file():
            raise RuntimeError(f"{f} is missing: the experiment did not run (ramble -D {exp.parents[3]} on)")
    start = out.stat().st_mtime if out.stat().st_size == 0 else None
    return start, inp.stat().st_mtime, result.stat().st_mtime


def measure(ws: Path = None) -> list:
    ws = ws or Place(STUDY, "local", "paper").workspace
    if not _experiments(ws):
        return [Figure("Ramble overhead: not measured (no smoke workspace: run make smoke first)", float("nan"), "")]
    system = yaml.safe_load((ws / "configs" / "ramble.yaml").read_text())["ramble"]["variables"].get("system")
    if system != "local":  # through a batch scheduler, ramble on returns once the jobs are submitted
        return [
            Figure(
                f"Ramble overhead: not measured (smoke is set up for {system}: make smoke SYSTEM=local)",
                float("nan"),
                "",
            )
        ]
    on = shell.run(f"ramble -D {ws} on", log=ws / "logs" / "bench-on.log")
    shell.run(
        f"ramble -D {ws} workspace analyze -f json text >/dev/null"
    )  # results.latest.json matches the outputs again
    runs = [own_run(e) for e in _experiments(ws)]
    apps = sum(end - launch for _, launch, end in runs)
    scripts = sum(end - start for start, _, end in runs if start is not None)
    cmd = f"ramble -D {ws} on"
    figures = [
        Figure("ramble on (smoke study): wall", on.wall, "s", None, cmd),
        Figure(f"smoke: sum of the {len(runs)} experiments' own runs", apps, "s", None, cmd),
        Figure("Ramble overhead: ramble on wall / own runs", on.wall / apps, "x", None, cmd),
    ]
    if all(start is not None for start, _, _ in runs):
        figures.append(Figure("  of which in execute_experiment before the launch", scripts - apps, "s", None, cmd))
        figures.append(Figure("  of which in ramble itself", on.wall - scripts, "s", None, cmd))
    return figures
