"""make concretize: the Spack environment of a study on a system, solved offline with the pinned
Spack and written to environments/<study>/<system>/ (spack.yaml, spack.lock, inputs.sha256):
a paper system's published configuration, or a site's own system's, to commit.

The manifest comes from the study's dry-run on the system (every Spack environment its experiments
use); the solve is the one a run makes when no lock is committed (the same folder form, kept in the
cache by its specs and inputs: hpcaas/environments.py), so a lock solved either way is the same lock."""

import shutil
from concurrent.futures import ThreadPoolExecutor

from analysis.errors import InputError
from hpcaas import environments
from hpcaas.paths import CONFIGS, ROOT, WORKSPACES
from hpcaas.run import dryrun, tools
from hpcaas.run.progress import say

SPACK_PYTHON = ROOT / "hpcaas" / "spack_python"


def concretize(system: str, study: str) -> str:
    if not (WORKSPACES / study / "study.yaml").is_file():
        raise InputError(f"ramble-workspaces/{study}/study.yaml", "ENV", "a study (see ls ramble-workspaces/)")
    if not (CONFIGS / system / "system.yaml").is_file():
        raise InputError(f"configs/{system}/system.yaml", "SYSTEM", "an existing system (see ls configs/)")
    ws = dryrun.generate(study, system)
    specs = environments.specs_of(ws)
    solved = environments.cache_folder(system, specs)
    if environments.stale_reason(study, system, solved):
        say(f"{study} on {system}: solving {len(specs)} specs (unify: false, one solve per spec)")
        environments.write_manifest(solved, None, system, specs)
        with open(solved / "concretize.log", "w") as log:
            tools.run(
                ["spack", "-e", solved, "python", SPACK_PYTHON / "concretize.py"],
                log,
                on_line=lambda line: say(f"  {line.strip()}") if line.startswith("   ") else None,
            )
        environments.record(study, system, solved)
    else:
        say(f"{study} on {system}: unchanged inputs, lock from the cache")
    out = environments.folder(study, system)
    environments.write_manifest(out, study, system, specs)
    shutil.copy(solved / "spack.lock", out / "spack.lock")
    environments.record(study, system)
    say(f"{out.relative_to(ROOT)}: {study} solved for {system} (spack env activate {out.relative_to(ROOT)})")
    return str(out)


def stale_pairs() -> list:
    """(study, system) of every stale or missing lock (hpcaas environments stale)."""
    return [tuple(line.split(":")[0].split(" on ")) for line in environments.stale()]


def register(sub):
    p = sub.add_parser("concretize", help="solve a study's Spack environment for a system into environments/")
    p.add_argument("system", nargs="?")
    p.add_argument("study", nargs="?")
    p.add_argument("--stale", action="store_true", help="every pair whose lock is stale or missing")
    p.add_argument("-j", "--jobs", type=int, default=2, help="solves at once with --stale (default 2)")

    def run(args):
        if args.stale:
            todo = stale_pairs()
            with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
                list(pool.map(lambda pair: concretize(pair[1], pair[0]), todo))
            say(f"{len(todo)} locks solved")
            return 0
        if not (args.system and args.study):
            raise InputError("command line", "SYSTEM, ENV", "make concretize SYSTEM=<system> ENV=<study>")
        concretize(args.system, args.study)
        return 0

    p.set_defaults(func=run)
