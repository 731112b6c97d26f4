"""Session fixtures shared by every test folder, and which tests may run side by side.

make test runs the suite on several pytest-xdist workers (--dist loadgroup). Tests that share
state on this machine run one after another in one group: `store` builds and stages in Spack's
store (the catalog, the patch tests of tests/apps/<app>/); `runs` runs studies and writes the
project's shared folders (ramble-workspaces/, results/, configs/local*, the Slurm cluster).
Tests marked `exclusive` (they judge performance) run afterwards, alone on the machine."""

import os
import subprocess
from fnmatch import fnmatch
from pathlib import Path

import pytest
from testkit import ROOT

# make test runs pytest inside make: the make commands tests run would be sub-makes, which print
# "make[1]: Entering directory" around a command's own output. Each is a user's make.
for _name in ("MAKELEVEL", "MAKEFLAGS", "MFLAGS"):
    os.environ.pop(_name, None)

GROUPS = {
    "store": ["apps/*/*", "catalog/*"],
    "runs": [
        "environments/*",  # lists every study; the render tests add one for a moment
        "foundation/*",
        "reproduce/*",
        "slurm/*",
        "studies/test_readme.py",
        "studies/test_render.py",
        "studies/test_small_presets.py",
        "systems/test_probe.py",  # writes a system into configs/ (a pair of environments/) and runs Slurm
        "validate/test_validate_bad_input.py",
    ],
}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (--dist loadgroup)
def pytest_collection_modifyitems(config, items):
    for item in items:
        rel = Path(str(item.fspath)).relative_to(ROOT / "tests").as_posix()
        for group, patterns in GROUPS.items():
            if any(fnmatch(rel, p) for p in patterns):
                item.add_marker(pytest.mark.xdist_group(group))
                break


@pytest.fixture(scope="session")
def project():
    """The project root with `make setup` done (idempotent; fails the test with setup's reason)."""
    proc = subprocess.run(["make", "setup"], cwd=ROOT, capture_output=True, text=True, timeout=3600)
    if proc.returncode != 0:
        pytest.fail(
            "make setup failed, so Spack/Ramble tests cannot run:\n" + proc.stdout[-3000:] + proc.stderr[-3000:]
        )
    return ROOT
