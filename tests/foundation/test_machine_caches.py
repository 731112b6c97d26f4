"""A new clone on a machine that has set the project up once: make setup's steps take what the
machine keeps in HPCAAS_CACHE by what it depends on (the tools' pinned commits, the pin list's
hash, each source's sha256) instead of cloning, installing and downloading again."""

import csv
import os
import subprocess
from pathlib import Path

import pytest
from testkit import ROOT

CACHE = Path(os.environ.get("HPCAAS_CACHE") or Path.home() / ".cache/hpcaas-bench")


def pins():
    return dict(line.split("=", 1) for line in (ROOT / "pins.env").read_text().splitlines() if line and line[0] != "#")


@pytest.fixture(scope="module")
def clone(project, tmp_path_factory):
    """A clone of this checkout's HEAD, set up by setup's steps that use the machine's caches
    (tools, venv, mirror); make system is not run (it describes the machine, not the clone)."""
    root = tmp_path_factory.mktemp("clone") / "hpcaas-bench"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(root)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "HPCAAS_ROOT"}
    said = ""
    for step in ("tools", "venv", "mirror"):
        proc = subprocess.run([f"scripts/{step}.sh"], cwd=root, env=env, capture_output=True, text=True)
        said += proc.stdout + proc.stderr
        assert proc.returncode == 0, f"scripts/{step}.sh in a new clone failed:\n{said[-3000:]}"
    return root, said


def test_tools_are_linked_copies_of_the_machines_checkout_at_the_pin(clone):
    root, _ = clone
    p = pins()
    for tool, key in (("spack", "SPACK_COMMIT"), ("ramble", "RAMBLE_COMMIT")):
        repo = root / ".tools" / tool
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True, text=True, check=True)
        assert head.stdout.strip() == p[key], tool
        alternates = (repo / ".git/objects/info/alternates").read_text().split()
        assert alternates == [str(CACHE / "tools" / f"{tool}.git" / "objects")], tool
        counts = subprocess.run(["git", "-C", repo, "count-objects", "-v"], capture_output=True, text=True).stdout
        assert "in-pack: 0" in counts.splitlines(), f"{tool}: the clone copied history:\n{counts}"
        # A linked copy of the machine's checkout, its own modules byte-compiled there once.
        init = repo / "lib" / tool / tool / "__init__.py"
        assert init.stat().st_nlink >= 2, f"{tool}: checked out in the clone, not linked"
        assert list(init.parent.glob("__pycache__/__init__.cpython-*.pyc")), f"{tool}: not byte-compiled"
        origin = subprocess.run(["git", "-C", repo, "config", "remote.origin.url"], capture_output=True, text=True)
        assert origin.stdout.strip() == p[key.replace("COMMIT", "URL")], tool


def test_venv_is_a_linked_copy_of_the_machines_with_the_clone_installed(clone):
    root, _ = clone
    venv = root / ".venv"
    init = next(venv.glob("lib/python*/site-packages/pandas/__init__.py"))
    assert init.stat().st_nlink >= 2, "pandas was installed into the clone, not linked from the machine's venv"
    machine = (CACHE / "venvs").glob("requirements-*/lib/python*/site-packages/pandas/__init__.py")
    assert init.stat().st_ino in {p.stat().st_ino for p in machine}
    # Byte-compiled once for the machine: a new process imports pandas without compiling it.
    assert list(init.parent.glob("__pycache__/__init__.cpython-*.pyc"))
    proc = subprocess.run(
        [venv / "bin/python", "-c", "import analysis, hpcaas.paths as p; print(analysis.__file__, p.ROOT)"],
        cwd="/",
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "HPCAAS_ROOT"},
    )
    module, found_root = proc.stdout.split()
    assert Path(module).is_relative_to(root) and Path(found_root) == root, proc.stdout + proc.stderr
    assert subprocess.run([venv / "bin/hpcaas-analyze", "--help"], capture_output=True).returncode == 0


def test_mirror_links_the_sources_the_machine_checked(clone):
    root, said = clone
    rows = [
        r
        for r in csv.reader((ROOT / "scripts/mirror-sources.tsv").open(), delimiter="\t")
        if r and not r[0].startswith("#")
    ]
    assert rows
    for pkg, _version, _source, file, sha in rows:
        mirrored, kept = root / "mirror" / pkg / file, CACHE / "sources" / sha
        assert mirrored.stat().st_ino == kept.stat().st_ino, f"{mirrored} is not {kept}"
        assert f"mirror: {file} from" not in said, f"{file} was fetched again:\n{said}"
