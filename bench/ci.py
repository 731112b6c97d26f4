"""`.ci/run` on a clean clone, fresh (an empty HPCAAS_CACHE, as a new machine) and then warm (the
same cache again), as CI runs it: `make setup`, `make test`, and the long tier when the cache has
no pass of it for a commit that differs from HEAD in documentation only (so the warm run is the
one of a commit CI has seen). An hour or more on a small machine: `make bench CI=1`."""

import shutil
import tempfile
from pathlib import Path

from bench import shell
from bench.clone import _env
from bench.record import Figure
from hpcaas.paths import ROOT

LIMITS = {"fresh": 45.0, "warm": 10.0}  # minutes, issue 17


def measure(logs: Path) -> list:
    """The figures; each run's output is in logs/ci-<phase>.log."""
    logs.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="hpcaas-bench-ci-"))
    clone, figures = folder / "hpcaas-bench", []
    env = {**_env(), "HPCAAS_CACHE": str(folder / "cache")}
    try:
        shell.run(f"git clone -q {ROOT} {clone}", cwd=folder, env=env, setup_env=False)
        for phase in ("fresh", "warm"):
            timed = shell.run(".ci/run", cwd=clone, env=env, setup_env=False, log=logs / f"ci-{phase}.log")
            cmd = f"git clone + .ci/run ({'an empty' if phase == 'fresh' else 'the same'} HPCAAS_CACHE)"
            figures.append(Figure(f".ci/run {phase}", timed.wall / 60, "min", LIMITS[phase], cmd))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures
