"""Where a run lives, outside the project's sources: under the runs root ($HPCAAS_RUNS, else
<project>/runs/), one folder per (system, scale, study), as Benchpark keeps one per (experiment,
system):

    runs/<system>/<scale>/<study>/
        workspace/       the Ramble workspace: rendered configs, Spack environments, experiments,
                         Ramble's logs and its archive of earlier experiments
        <UTC stamp>/     one run: run.log (everything Ramble and Spack printed), results.csv,
                         jobs.csv (Slurm), report.md, provenance.json
        latest           the newest run that wrote results (a symbolic link)

A run never writes into ramble-workspaces/, configs/ or environments/; two systems' runs of a
study stand side by side, and a failed run never touches an earlier run's folder."""

import datetime
import os
from dataclasses import dataclass
from pathlib import Path

from hpcaas.paths import ROOT


def runs_root() -> Path:
    return Path(os.environ.get("HPCAAS_RUNS") or ROOT / "runs").resolve()


@dataclass(frozen=True)
class Place:
    study: str
    system: str
    scale: str

    @property
    def folder(self) -> Path:
        return runs_root() / self.system / self.scale / self.study

    @property
    def workspace(self) -> Path:
        return self.folder / "workspace"

    @property
    def latest(self) -> Path:
        return self.folder / "latest"

    def new_run(self) -> Path:
        """A new folder for one run, named by the UTC time it started (a second one in the same
        second gets a suffix)."""
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        self.folder.mkdir(parents=True, exist_ok=True)
        for n in range(100):
            run = self.folder / (stamp if n == 0 else f"{stamp}-{n}")
            try:
                run.mkdir()
                return run
            except FileExistsError:
                continue
        raise RuntimeError(f"{self.folder}: cannot make a run folder")

    def mark_latest(self, run: Path):
        """`latest` -> run, replaced in one rename."""
        tmp = self.folder / f".latest.{os.getpid()}"
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(run.name)
        tmp.replace(self.latest)
