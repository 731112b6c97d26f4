"""A new clone -> `make setup && make smoke` (FULL=1: minutes), as issue 32 counts it:

- new machine: a fresh `git clone` of this project (its committed HEAD) with an empty
  HPCAAS_CACHE: Spack and Ramble cloned, uv and the machine's venv made, the source mirror
  filled, Spack's package index built, HPCC built by Spack (target: 180 s to the first CSV; the
  Debian packages and pip's own cache are the machine's and stay as they are);
- new clone, warm machine: a second fresh clone with that same HPCAAS_CACHE, which now holds the
  tool clones, the venv, the sources, the solved locks and the Spack store (target: 15 s);
- same clone again: the two commands once more in that second clone (no target).

Each command's time is split by its `[hpcaas] ...` progress lines (setup: tools, venv, mirror,
make system; smoke: Ramble's phases and Spack), and the smoke's four experiments' own runs (the
launch of HPCC to its last write, bench/overhead.py) are told apart from the Ramble phases around
them."""

import os
import shutil
import tempfile
from pathlib import Path

from bench import shell
from bench.overhead import own_run
from bench.record import Figure
from hpcaas.paths import ROOT

LIMITS = {"new machine": 180.0, "new clone, warm machine": 15.0}  # issue 32


def _env() -> dict:
    """The user's environment without this clone's setup-env.sh (the new clone makes its own)."""
    dropped = ("SPACK_", "RAMBLE_", "HPCAAS_ROOT", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    venv = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv and ".tools" not in p)
    return env


def _own_runs(clone: Path) -> float:
    """The seconds the smoke's experiments ran their launch lines, summed."""
    ws = clone / "runs" / "local" / "paper" / "smoke" / "workspace"
    runs = [own_run(p.parent) for p in (ws / "experiments").rglob("execute_experiment")]
    return sum(end - launch for _, launch, end in runs)


def _phase(name, clone, env, logs, slug) -> list:
    cmd = f"git clone + make setup && make smoke ({name})"
    setup = shell.run("make setup", cwd=clone, env=env, setup_env=False, log=logs / f"clone-{slug}-setup.log")
    smoke = shell.run("make smoke", cwd=clone, env=env, setup_env=False, log=logs / f"clone-{slug}-smoke.log")
    runs = _own_runs(clone)
    figures = [
        Figure(f"{name}: setup + smoke", setup.wall + smoke.wall, "s", LIMITS.get(name), cmd),
        Figure(f"{name}: make setup", setup.wall, "s", None, cmd),
        Figure(f"{name}: make smoke", smoke.wall, "s", None, cmd),
        Figure(f"{name}: smoke: its 4 experiments' own runs", runs, "s", None, cmd),
        Figure(f"{name}: smoke: Ramble, Spack and the rest", smoke.wall - runs, "s", None, cmd),
    ]
    for command, timed in (("setup", setup), ("smoke", smoke)):
        for step, seconds in timed.steps():
            if seconds >= 0.5:  # where the time went, by the commands' own progress lines
                figures.append(Figure(f"    {command}: {step[:56]}", seconds, "s", None, cmd))
    return figures


def measure(logs: Path) -> list:
    """The figures; each command's output is in logs/clone-<phase>-<command>.log."""
    logs.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="hpcaas-bench-clone-"))
    env = {**_env(), "HPCAAS_CACHE": str(folder / "cache")}
    figures = []
    try:
        first, second = folder / "first", folder / "second"
        for clone in (first, second):
            shell.run(f"git clone -q {ROOT} {clone}", cwd=folder, env=env, setup_env=False)
        figures += _phase("new machine", first, env, logs, "new-machine")
        shutil.rmtree(first)  # the machine's caches stay, the first clone goes
        figures += _phase("new clone, warm machine", second, env, logs, "warm-machine")
        figures += _phase("same clone again", second, env, logs, "again")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures
