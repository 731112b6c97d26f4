"""A system's toolchain: the compilers and MPIs it builds with (spack/definitions.yaml, else
spack/compilers.yaml and the MPI providers of spack/packages.yaml), the targets it builds for,
and whether each compiler can build for them, by archspec's own data: the copy Spack v0.23.1
vendors (.tools/spack/lib/spack/external/archspec), which is what Spack's solver asks before it
refuses `%gcc@7.3.1 target=zen4` ("compiler incompatible with target").

The rule (configs/README.md): the default compiler builds for the default target, and every
other compiler the system offers builds for at least one of its targets. A compiler that only
builds another one (the image's gcc that builds a gcc@13 Spack then uses, on images whose gcc is
older than the CPU) is in compilers.yaml but not offered (definitions.yaml `compilers`).
"""

import importlib.util
import re
import sys
import warnings
from functools import lru_cache
from pathlib import Path

import yaml

from analysis.errors import InputError
from hpcaas.paths import ROOT

ARCHSPEC = ROOT / ".tools/spack/lib/spack/external/archspec"


@lru_cache(maxsize=1)
def archspec_targets():
    """archspec.cpu.TARGETS of the Spack the project pins (not any archspec on the path)."""
    if "archspec" not in sys.modules:
        init = ARCHSPEC / "__init__.py"
        if not init.is_file():
            raise InputError(ARCHSPEC, "(folder)", "Spack's vendored archspec: run 'make setup' first")
        spec = importlib.util.spec_from_file_location("archspec", init, submodule_search_locations=[str(ARCHSPEC)])
        module = importlib.util.module_from_spec(spec)
        sys.modules["archspec"] = module
        spec.loader.exec_module(module)
    import archspec.cpu

    return archspec.cpu.TARGETS


def _definitions(folder: Path) -> dict:
    file = folder / "spack/definitions.yaml"
    out = {}
    if file.is_file():
        for entry in (yaml.safe_load(file.read_text()) or {}).get("definitions", []) or []:
            out.update(entry)
    return out


def _compilers_yaml(folder: Path) -> list:
    doc = yaml.safe_load((folder / "spack/compilers.yaml").read_text()) or {}
    return [c["compiler"] for c in doc.get("compilers", []) if isinstance(c, dict) and "compiler" in c]


def compilers(folder) -> tuple:
    """(file, [compiler spec, ...], default): the compilers the system offers its builds."""
    folder = Path(folder)
    defs = _definitions(folder)
    if defs.get("compilers"):
        offered = [c.lstrip("%").replace("@=", "@") for c in defs["compilers"]]
        default = [c.lstrip("%").replace("@=", "@") for c in defs.get("default_compiler", [])] or offered[:1]
        return folder / "spack/definitions.yaml", offered, default[0]
    offered = [c["spec"].replace("@=", "@") for c in _compilers_yaml(folder)]
    return folder / "spack/compilers.yaml", offered, (offered or [None])[0]


def mpis(folder) -> list:
    """The MPIs the system offers (definitions.yaml `mpis`, else packages.yaml's MPI providers,
    with their externals' versions), as specs without '^'."""
    folder = Path(folder)
    defs = _definitions(folder)
    if defs.get("mpis"):
        return [m.lstrip("^") for m in defs["mpis"]]
    packages = (yaml.safe_load((folder / "spack/packages.yaml").read_text()) or {}).get("packages", {})
    out = []
    for name in packages.get("all", {}).get("providers", {}).get("mpi", []):
        externals = packages.get(name, {}).get("externals", [])
        out.append(externals[0]["spec"].split()[0] if externals else name)
    return out


def targets(folder, native: str) -> tuple:
    """(default target, [every target]) the system builds for: definitions.yaml's, else the
    processor's archspec target (processor.target)."""
    defs = _definitions(Path(folder))

    def target_of(entries):
        return [w.split("=", 1)[1] for e in entries for w in str(e).split() if w.startswith("target=")]

    every = target_of(defs.get("targets", [])) or [native]
    default = (target_of(defs.get("default_target", [])) or every)[0]
    return default, list(dict.fromkeys([default, *every]))


def why_not(compiler: str, target: str):
    """None when archspec lets `compiler` build for `target` (Spack's own test), else why not."""
    name, _, version = compiler.partition("@")
    uarch = archspec_targets()[target]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # archspec warns about Intel compilers on AMD
            uarch.optimization_flags(name, version.split()[0])
        return None
    except ValueError as err:  # Spack skips the target on either error (solver/asp.py)
        if type(err).__name__ != "UnsupportedMicroarchitecture":
            return f"archspec cannot read the version {version!r}"
        ranges = [e["versions"] for e in uarch.compilers.get(name, [])]
        if not ranges:  # known to the family, not to this target
            best = next(a for a in uarch.ancestors if name in a.compilers)
            return f"archspec: {name} optimizes up to {best.name}"
        lows = sorted({r.split(":")[0] for r in ranges if r.split(":")[0]}, key=_version_key)
        return f"archspec: needs {name} >= {lows[0]}" if lows else f"archspec: needs {name} {', '.join(ranges)}"


def _version_key(text):
    return tuple(int(x) for x in re.findall(r"\d+", text))


def check(folder, native: str) -> None:
    """InputError (one line) naming every compiler x target pair archspec refuses."""
    folder = Path(folder)
    file, offered, default = compilers(folder)
    default_target, every = targets(folder, native)
    known = archspec_targets()
    bad = []
    for compiler in offered:
        wanted = [default_target] if compiler == default else every
        wanted = [t for t in wanted if t in known]
        reasons = {t: why_not(compiler, t) for t in wanted}
        if wanted and all(reasons.values()):
            bad += [f"{compiler} cannot build for {t} ({reasons[t]})" for t in wanted[:1]]
    if bad:
        raise InputError(
            file,
            "compilers",
            "; ".join(bad)
            + " - offer a compiler that can (one Spack builds first with the image's: configs/README.md)",
        )
