"""Ramble's own per-application test (test_known_applications in Ramble's test suite: generate a
workspace for the application with `ramble workspace generate-config`, set it up with --dry-run,
analyze and archive it) for every application of this repository, run by `ramble unit-test` with
this project's Ramble configuration: with Spack in make test, with every package manager Ramble
offers in the slow tier. A pass is kept per application and package manager, keyed by every file
Ramble reads for it (testkit.app_key: its definitions, the apps it imports, the kit, the modifiers,
Ramble's pin) and this configuration (scripts/configure.sh): only what changed runs again, as
Ramble alone takes 5-10 s per application."""

import hashlib
import re

import pytest
from testkit import ROOT, app_key, cache_folder, definitions, run

APPS = sorted(p.parent.name for p in (ROOT / "ramble-repo/applications").glob("*/application.py"))
TEST = "lib/ramble/ramble/test/end_to_end/known_applications.py"


def known_applications(managers):
    store = cache_folder("known-applications")
    config = (ROOT / "scripts/configure.sh").read_bytes()
    keys = {(app, pm): app_key(app, TEST, pm, hashlib.sha256(config).hexdigest()) for app in APPS for pm in managers}
    todo = [case for case, key in keys.items() if not (store / key).is_file()]
    if not todo:
        return
    ids = [f"{TEST}::test_known_applications[{app}-{pm}]" for app, pm in todo]
    proc = run(
        f"cd .tools/ramble && ramble unit-test -q -p no:cacheprovider {' '.join(ids)}", check=False, timeout=3600
    )
    summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr[-2000:]
    passed = re.search(r"(\d+) passed", summary)
    assert proc.returncode == 0 and passed and int(passed.group(1)) == len(ids), (
        "\n".join(line for line in proc.stdout.splitlines() if "FAILED" in line or "Error" in line)[-4000:] or summary
    )
    store.mkdir(parents=True, exist_ok=True)
    for case in todo:
        (store / keys[case]).write_text(" ".join(case) + "\n")


def test_ramble_known_applications_with_spack(project):
    """With Spack, the package manager every study and the catalog use."""
    known_applications(["spack"])


@pytest.mark.slow
def test_ramble_known_applications_with_every_package_manager(project):
    """With every package manager Ramble offers (and none): minutes, so in the slow tier."""
    known_applications(["None"] + run("ramble list --type package_managers").stdout.split())


def test_a_kept_pass_is_keyed_by_the_apps_it_imports():
    """An application's key covers the applications it imports (hpcc builds on hpl's
    definitions), so a change there runs it again; and differs per package manager."""
    imports = {
        app: re.findall(
            r"ramble\.app\.hpcaas\.([\w-]+)", (ROOT / f"ramble-repo/applications/{app}/application.py").read_text()
        )
        for app in APPS
    }
    assert any(imports.values()), "no application imports another: the import rule is untested"
    for app, others in imports.items():
        files = definitions(app)
        for other in others:
            assert ROOT / f"ramble-repo/applications/{other.replace('_', '-')}/application.py" in files, (app, other)
    assert app_key(APPS[0], TEST, "spack") != app_key(APPS[0], TEST, "None") != app_key(APPS[1], TEST, "None")
