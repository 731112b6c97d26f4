"""Shared test helpers, imported as `from testkit import ROOT, run` (not from conftest: pytest
loads every conftest.py as the one module `conftest`). Tests that need Spack or Ramble FAIL
(never skip) when the tools are not set up, with the reason: a green run must mean the real
stack ran."""

import functools
import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(cmd, check=True, env=None, timeout=1800, cwd=ROOT):
    """Run a shell command in the project with setup-env.sh sourced (this machine's Spack config,
    `local`, for plain spack commands unless HPCAAS_SYSTEM says otherwise); return CompletedProcess."""
    full = f". ./setup-env.sh && {cmd}"
    proc = subprocess.run(
        ["bash", "-c", full],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={"HPCAAS_SYSTEM": "local", **os.environ, **(env or {})},
        timeout=timeout,
    )
    if check and proc.returncode != 0:
        pytest.fail(
            f"`{cmd}` exited {proc.returncode}\n--- stdout\n{proc.stdout[-4000:]}\n--- stderr\n{proc.stderr[-4000:]}"
        )
    return proc


def systems_cli(*args, configs):
    """`hpcaas systems --configs CONFIGS ARGS...` in a process of its own."""
    return subprocess.run(
        [sys.executable, "-m", "hpcaas", "systems", "--configs", str(configs), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def place(study, system="local", scale="paper"):
    """Where make run / reproduce / catalog keep a study's runs on a system (hpcaas/run/place.py):
    .workspace (Ramble's), .latest (the newest run's folder: results.csv, report.md, run.log)."""
    from hpcaas.run.place import Place

    return Place(study, system, scale)


def catalog_spec(app) -> str:
    """The spec the catalog builds APP from on `local` (hpcaas.catalog.entries: the application's
    own spec, with Open MPI where it is an MPI code Spack builds)."""
    from hpcaas import catalog

    found = [e for e in catalog.entries("local") if e["application"] == app]
    if len(found) != 1:
        pytest.fail(f"{app}: {len(found)} entries in the catalog of local (hpcaas.catalog.entries), not one")
    e = found[0]
    return e["spec"] + (" ^openmpi" if e["mpi"] and e["built_by"] == "spack" else "")


def solved(spec, system="local", config="", timeout=1200) -> Path:
    """SPEC solved by Spack for `system` (its Spack config, with `spack -c` options CONFIG) by the
    project's solve (hpcaas/spack_python/concretize.py), as a JSON file that `spack patch`, `spack install`
    or Spec.from_json take. Each solve takes 20-60 s, so the file is kept under
    $HPCAAS_CACHE/spec/, keyed by the hash of the system's Spack inputs (hpcaas.spack_inputs),
    CONFIG and SPEC: unchanged inputs reuse it, and a test that asks while another test (or
    xdist worker) solves the same waits for that solve rather than solving it twice."""
    import fcntl
    import hashlib
    import tempfile

    from hpcaas.spack_inputs import inputs_hash

    key = hashlib.sha256(f"{inputs_hash(system)}\0{config}\0{spec}".encode()).hexdigest()[:32]
    out = Path(os.environ.get("HPCAAS_CACHE", Path.home() / ".cache/hpcaas-bench")) / "spec" / "solved" / f"{key}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not out.exists():
            with tempfile.TemporaryDirectory() as tmp:
                program = "hpcaas/spack_python/concretize.py"
                run(
                    f"hpcaas_system {system} && spack {config} python {program} '{spec}' {tmp}/spec.json",
                    timeout=timeout,
                )
                (Path(tmp) / "spec.json").replace(out)  # whole, or not at all
    return out


def staged_source(spec, stage, timeout=900) -> Path:
    """`spack patch SPEC` into the private build stage `stage` (a tmp folder): the package's
    fetched and patched source tree, spack-src."""
    run(f"spack -c 'config:build_stage:[{stage}]' patch {solved(spec)}", timeout=timeout)
    name = spec.split("@")[0].split()[0]
    (src,) = Path(stage).glob(f"**/spack-stage-{name}-*/spack-src")
    return src


def local_facts():
    """What `make system` found on this machine (configs/local): target, OS and default
    compiler spec, so that no test names the development machine's."""
    import yaml

    local = ROOT / "configs/local"
    system = yaml.safe_load((local / "system.yaml").read_text())
    compilers = yaml.safe_load((local / "spack/compilers.yaml").read_text())["compilers"]
    definitions = yaml.safe_load((local / "spack/definitions.yaml").read_text())["definitions"]
    default = next(d["default_compiler"][0] for d in definitions if "default_compiler" in d)
    os_name = next(
        c["compiler"]["operating_system"]
        for c in compilers
        if "%" + c["compiler"]["spec"].replace("@=", "@") == default
    )
    return {"target": system["processor"]["target"]["value"], "os": os_name, "compiler": default}


def definitions(app: str, seen=None) -> list:
    """The files Ramble's extraction for `app` reads: its application folder, those of the
    applications it imports (ramble.app.hpcaas.<other>), the kit, the modifiers and the repo's
    description; with scripts/foms.py and pins.env (Ramble's commit), what a case's result depends on."""
    seen = set() if seen is None else seen
    if app in seen:
        return []
    seen.add(app)
    folder = ROOT / "ramble-repo/applications" / app
    files = sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    for other in re.findall(r"ramble\.app\.hpcaas\.([\w-]+)", (folder / "application.py").read_text()):
        files += definitions(other.replace("_", "-"), seen)
    return files


@functools.cache
def shared_definitions() -> str:
    digest = hashlib.sha256()
    for rel in ("ramble-repo/kit", "ramble-repo/modifiers", "ramble-repo/repo.yaml", "scripts/foms.py", "pins.env"):
        path = ROOT / rel
        for p in sorted(path.rglob("*")) if path.is_dir() else [path]:
            if p.is_file() and "__pycache__" not in p.parts:
                digest.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes())
    return digest.hexdigest()


def cache_folder(name) -> Path:
    """$HPCAAS_CACHE/<name> (~/.cache/hpcaas-bench/<name>): what tests keep between runs on this machine."""
    base = os.environ.get("HPCAAS_CACHE") or Path.home() / ".cache/hpcaas-bench"
    return Path(base) / name


def app_key(app, *extra) -> str:
    """A key for what Ramble does with `app`: every definition it reads (definitions, with the
    kit, the modifiers, scripts/foms.py and Ramble's pin) and EXTRA (what else the result depends on)."""
    digest = hashlib.sha256(shared_definitions().encode())
    for p in definitions(app):
        digest.update(str(p.relative_to(ROOT)).encode() + b"\0" + p.read_bytes())
    digest.update("\0".join(map(str, extra)).encode())
    return digest.hexdigest()[:32]
