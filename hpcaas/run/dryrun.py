"""make dry-run: a study's experiments generated for a system without building or running anything
(`ramble workspace setup --dry-run`), so a paper's matrix can be checked on its own system from any
machine: experiment names, launch lines, environment and the Spack environments with their locks.

The workspace is runs/<system>/<scale>/<study>/dry-run/. Its Spack environments hold the committed
lock's solve of their specs where the pair has one (environments/<study>/<system>/): what a real
run there builds. A dry-run generated before from identical inputs (hpcaas/dryrun.py) is restored
from the cache instead (HPCAAS_DRYRUN_CACHE=0: always Ramble)."""

import os
import shutil
from pathlib import Path

from analysis.errors import InputError
from hpcaas import dryrun, environments, render, systems
from hpcaas.paths import CONFIGS, ROOT
from hpcaas.run import tools
from hpcaas.run.place import Place
from hpcaas.run.progress import say, warn


def generate(study: str, system: str, scale: str = "paper") -> Path:
    """The dry-run workspace of (study, system, scale), generated or restored; its path."""
    if not (CONFIGS / system / "system.yaml").is_file():
        raise InputError(f"configs/{system}/system.yaml", "SYSTEM", "an existing system (see ls configs/)")
    systems.check_system_dir(CONFIGS / system)
    ws = Place(study, system, scale).folder / "dry-run"
    shutil.rmtree(ws, ignore_errors=True)
    cache = Path(tools.environment()["HPCAAS_CACHE"])
    key = dryrun.cache_key(study, system, scale, ROOT, str(cache))
    if os.environ.get("HPCAAS_DRYRUN_CACHE", "1") != "0" and dryrun.restore(cache / "dry-runs" / key, ws, ROOT):
        say(f"{study} on {system} ({scale} scale): generated before from identical inputs (cache {key})")
    else:
        render.render(study, system, scale, out=ws)
        env = tools.environment(HPCAAS_SYSTEM=system)
        say(f"{study} on {system} ({scale} scale): ramble workspace setup --dry-run")
        with open(ws / "setup.log", "w") as log:
            ramble = ["ramble", "-D", ws, "workspace", "setup", "--dry-run"]
            try:
                seed_committed(study, system, ws, env, log, dry_run=True)
                tools.run(ramble, log, env=env)
            except tools.ToolError:
                raise tools.ToolError(
                    f"{study} on {system}: ramble workspace setup --dry-run failed (log: {ws / 'setup.log'})"
                ) from None
        dryrun.store(ws, cache / "dry-runs" / key, ROOT)
    n = sum(1 for _ in ws.glob("experiments/*/*/*/execute_experiment"))
    say(f"{study} on {system}: {n} experiments, each experiments/<app>/<workload>/<name>/execute_experiment")
    return ws


def seed_committed(study: str, system: str, ws: Path, env: dict, log, dry_run: bool = False) -> list:
    """Ramble writes the workspace's Spack environments (its software_create_env phase), and each
    gets the committed lock's solve of its specs, so that `ramble workspace setup` then installs
    exactly the committed configuration. Returns the environments seeded; a stale lock, or none,
    leaves them for Ramble to solve (with a warning for a stale one)."""
    mine = environments.committed(study, system)
    if mine is None:
        return []
    flags = ["--dry-run"] if dry_run else []
    tools.run(["ramble", "-D", ws, "workspace", "setup", *flags, "--phases", "software_create_env"], log, env=env)
    why = environments.stale_reason(study, system)
    if why:
        warn(f"{why} (the workspace's environments are left for Ramble to solve)")
        return []
    try:
        return environments.seed(ws, mine, system)
    except InputError as err:
        warn(f"{err} (the workspace's environments are left for Ramble to solve)")
        return []
