"""The one hash of what a Spack concretization depends on, for a system: the pinned Spack, the
project's Spack config (spack-config/), the system's (configs/<system>/spack/), the recipes of
spack-repo/ (those of the given packages only, when the lock's packages are known) and the
environment's manifest. The lock cache, `make concretize`, the committed locks' staleness test,
the recipe tests and the results' provenance all use it.

    hpcaas spack-inputs SYSTEM [--manifest spack.yaml] [--lock spack.lock] [--files]
"""

import hashlib
import json
from pathlib import Path

from hpcaas.paths import CONFIGS, ROOT

REPO = ROOT / "spack-repo"


def _spack_commit() -> str:
    for line in (ROOT / "pins.env").read_text().splitlines():
        if line.startswith("SPACK_COMMIT="):
            return line.split("=", 1)[1].strip()
    return ""


def lock_packages(lock) -> set:
    """The names of the packages a spack.lock holds."""
    doc = json.loads(Path(lock).read_text())
    return {spec["name"] for spec in doc.get("concrete_specs", {}).values()}


def files(system: str, packages=None, configs=CONFIGS) -> list:
    """The files the hash reads, sorted: project and system Spack config, the repository's
    recipes (all, or those of `packages`)."""
    recipes = sorted(
        p
        for p in (REPO / "packages").glob("*/*")
        if p.is_file() and p.suffix != ".pyc" and (packages is None or p.parent.name in packages)
    )
    return [
        *sorted((ROOT / "spack-config").glob("*.yaml")),
        ROOT / "spack-config/python/sitecustomize.py",  # how Spack solves another system's compilers
        *sorted((Path(configs) / system / "spack").glob("*.yaml")),
        REPO / "repo.yaml",
        *recipes,
    ]


def _label(path: Path, system: str, configs) -> str:
    """A file's name in the hash: its place in the project, wherever configs/ is."""
    path = Path(path)
    if path.parent == Path(configs) / system / "spack":
        return f"configs/{system}/spack/{path.name}"
    if path.is_relative_to(REPO):  # wherever the recipes are (a test may point REPO at a copy)
        return f"spack-repo/{path.relative_to(REPO)}"
    return str(path.relative_to(ROOT))


def inputs_hash(system: str, manifest: str = "", packages=None, configs=CONFIGS) -> str:
    """sha256 of the Spack pin, the files above (path and bytes) and the manifest text."""
    digest = hashlib.sha256(f"spack {_spack_commit()}\0".encode())
    for f in files(system, packages, configs):
        digest.update(_label(f, system, configs).encode() + b"\0" + f.read_bytes() + b"\0")
    digest.update(b"manifest\0" + manifest.encode())
    return digest.hexdigest()


def register(sub):
    ap = sub.add_parser("spack-inputs", help="the hash of a system's Spack inputs (locks, caches, provenance)")
    ap.add_argument("system")
    ap.add_argument("--manifest", help="an environment's spack.yaml, hashed with the rest")
    ap.add_argument("--lock", help="a spack.lock: only the recipes of its packages count")
    ap.add_argument("--files", action="store_true", help="list the files instead of hashing them")

    def run(args):
        packages = lock_packages(args.lock) if args.lock else None
        if args.files:
            print(*files(args.system, packages), sep="\n")
            return 0
        manifest = Path(args.manifest).read_text() if args.manifest else ""
        print(inputs_hash(args.system, manifest, packages))
        return 0

    ap.set_defaults(func=run)
