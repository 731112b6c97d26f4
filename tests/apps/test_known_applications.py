"""Ramble's own per-application test (test_known_applications in Ramble's test suite: generate a
workspace for the application with `ramble workspace generate-config`, set it up with --dry-run,
analyze and archive it) for every application of this repository, run by `ramble unit-test` with
this project's Ramble configuration: with Spack in make test, with every package manager Ramble
offers in the slow tier."""

import re

import pytest
from testkit import ROOT, run

APPS = sorted(p.parent.name for p in (ROOT / "ramble-repo/applications").glob("*/application.py"))
TEST = "lib/ramble/ramble/test/end_to_end/known_applications.py"


def known_applications(managers):
    ids = [f"{TEST}::test_known_applications[{app}-{pm}]" for app in APPS for pm in managers]
    proc = run(
        f"cd .tools/ramble && ramble unit-test -q -p no:cacheprovider {' '.join(ids)}", check=False, timeout=3600
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-2000:]
    passed = re.search(r"(\d+) passed", summary)
    assert proc.returncode == 0 and passed and int(passed.group(1)) == len(ids), (
        "\n".join(line for line in proc.stdout.splitlines() if "FAILED" in line or "Error" in line)[-4000:] or summary
    )


def test_ramble_known_applications_with_spack(project):
    """With Spack, the package manager every study and the catalog use."""
    known_applications(["spack"])


@pytest.mark.slow
def test_ramble_known_applications_with_every_package_manager(project):
    """With every package manager Ramble offers (and none): minutes, so in the slow tier."""
    known_applications(["None"] + run("ramble list --type package_managers").stdout.split())
