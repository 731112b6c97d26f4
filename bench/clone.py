"""Fresh clone -> `make setup && make smoke`, cold and warm (FULL=1: minutes).

Cold: a fresh `git clone` of this project (its committed HEAD) into a temporary folder, then
make setup and make smoke. The caches shared by every clone of the machine stay as they are:
HPCAAS_CACHE (Spack's install tree, the environment locks, the external MPIs), pip's wheel cache,
the Debian packages, and the local snapshots Spack and Ramble are cloned from. Made anew: .tools/
(Spack and Ramble cloned and checked out), .venv/, configs/local/, mirror/, the smoke workspace
(render, Spack environments, run, analysis). Warm: the same two commands again in that clone."""

import os
import shutil
import tempfile
from pathlib import Path

from bench import shell
from bench.record import Figure
from hpcaas.paths import ROOT

LIMITS = {"cold": 120.0, "warm": 15.0}  # issue 17


def _env() -> dict:
    """The user's environment without this clone's setup-env.sh (the new clone makes its own)."""
    dropped = ("SPACK_", "RAMBLE_", "HPCAAS_ROOT", "MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
    venv = str(ROOT / ".venv" / "bin")
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p != venv and ".tools" not in p)
    return env


def measure(logs: Path) -> list:
    """The figures; each command's output is in logs/clone-<phase>-<command>.log."""
    logs.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="hpcaas-bench-clone-"))
    clone, env, figures = folder / "hpcaas-bench", _env(), []
    try:
        shell.run(f"git clone -q {ROOT} {clone}", cwd=folder, env=env, setup_env=False)
        for phase in ("cold", "warm"):
            setup = shell.run("make setup", cwd=clone, env=env, setup_env=False, log=logs / f"clone-{phase}-setup.log")
            smoke = shell.run("make smoke", cwd=clone, env=env, setup_env=False, log=logs / f"clone-{phase}-smoke.log")
            cmd = f"git clone + make setup && make smoke ({phase})"
            figures.append(Figure(f"fresh clone {phase}: make setup", setup.wall, "s", None, cmd))
            figures.append(Figure(f"fresh clone {phase}: make smoke", smoke.wall, "s", None, cmd))
            figures.append(
                Figure(f"fresh clone {phase}: setup + smoke", setup.wall + smoke.wall, "s", LIMITS[phase], cmd)
            )
            for command, timed in (("setup", setup), ("smoke", smoke)):
                for step, seconds in timed.steps():
                    if seconds >= 1:  # where the time went, by the commands' own progress lines
                        figures.append(Figure(f"    {phase} {command}: {step[:44]}", seconds, "s", None, cmd))
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return figures
