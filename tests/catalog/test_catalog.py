"""`make catalog TIER=fast` for real: every application of ramble-repo/ whose cold build is quick is
built by Spack from its pinned source (the store's prefix, not an external) and runs its smallest
workload at each rank count with each of this machine's MPIs (threads for OpenMP-only codes);
the others are SKIPPED with the reason. Setting its workspace up again builds nothing (Spack's
installs are kept). Without the mapping of a pinned git repository, the catalog stops before
building, naming the URL and the mapping."""

import csv
import os
import re
import subprocess

import pytest
import yaml
from testkit import ROOT, place, run

from hpcaas import catalog

# make test-slow: building every fast-tier application from source takes hours on a 2-core machine
# whose store has not built them for its target (a new machine, or another CPU), beyond CI's limit.
pytestmark = pytest.mark.slow

CATALOG = place("catalog", "local", "fast")
APPS = sorted(p.parent.name for p in (ROOT / "ramble-repo/applications").glob("*/application.py"))


def make_catalog():
    proc = subprocess.run(["make", "catalog", "TIER=fast"], cwd=ROOT, capture_output=True, text=True, timeout=5400)
    table = list(csv.DictReader((CATALOG.latest / "catalog.csv").open()))
    return proc, {row["application"]: row for row in table}


def setup_again():
    """`ramble workspace setup` of the catalog's workspace, where make catalog builds: the
    CompletedProcess and the text of the per-experiment logs it wrote (Ramble streams Spack's
    output there, not to the terminal)."""
    logs = CATALOG.workspace / "logs"
    before = set(logs.glob("setup.*/"))
    proc = run(f"ramble -D {CATALOG.workspace} workspace setup", check=False, timeout=1800)
    written = [d for d in logs.glob("setup.*/") if d not in before and not d.is_symlink()]
    return proc, "".join(f.read_text(errors="replace") for d in written for f in sorted(d.glob("*.out")))


@pytest.fixture(scope="module")
def runs(project):
    first = make_catalog()
    assert first[0].returncode == 0, first[0].stdout[-4000:] + first[0].stderr[-4000:]
    results = list(csv.DictReader((CATALOG.latest / "results.csv").open()))
    return first[1], results, setup_again()


def test_one_row_per_application_and_tool(runs):
    table, _, _ = runs
    assert sorted(table) == sorted(APPS + list(catalog.TOOLS))
    for tool in catalog.TOOLS:  # built in the slow tier only
        assert table[tool]["status"] == "SKIPPED" and table[tool]["source_kind"] == "git", table[tool]


def test_fast_tier_applications_succeed_and_the_rest_say_why(runs):
    table, _, _ = runs
    for app, row in table.items():
        assert row["status"] in ("SUCCESS", "SKIPPED"), (app, row)
        if row["status"] == "SKIPPED":
            assert row["reason"], app
        else:
            assert int(row["foms"]) > 0, app


def test_spack_builds_carry_their_pinned_source_and_live_in_the_store(runs):
    table, _, _ = runs
    built = [row for row in table.values() if row["built_by"] == "spack" and row["status"] == "SUCCESS"]
    assert built
    store = os.environ.get("HPCAAS_CACHE", os.path.expanduser("~/.cache/hpcaas-bench")) + "/spack/install/"
    for row in built:
        kinds = {"git": r"[0-9a-f]{40}", "tarball": r"[0-9a-f]{64}"}
        assert row["source_kind"] in kinds and re.fullmatch(kinds[row["source_kind"]], row["source_ref"]), row
        envs = sorted((CATALOG.workspace / "software").glob(f"{row['application']}*"))
        assert envs, row["application"]
        for env in envs:
            prefixes = run(f"spack -e {env} find --format '{{name}} {{prefix}}'").stdout.split("\n")
            mine = [line.split()[1] for line in prefixes if line.split()[:1] == [row["application"]]]
            assert mine and all(p.startswith(store) for p in mine), (env, prefixes)


def test_each_application_ran_at_each_rank_count_with_each_mpi(runs):
    table, results, _ = runs
    system = yaml.safe_load((ROOT / "configs/local/spack/definitions.yaml").read_text())["definitions"]
    mpis = {m.lstrip("^").split("@")[0] for d in system for m in d.get("mpis", [])}
    for entry in catalog.entries("local", "fast"):
        if table[entry["application"]]["status"] != "SUCCESS":
            continue
        rows = [r for r in results if r["application"] == entry["application"] and r["status"] == "SUCCESS"]
        if entry["mpi"] and entry["built_by"] == "debian":  # linked to Debian's default MPI only
            assert {r["ranks"] for r in rows} == set(entry["ranks"]) and len({r["mpi"] for r in rows}) == 1
        elif entry["mpi"]:
            ran = {(r["mpi"], r["ranks"]) for r in rows}
            assert ran == {(m, n) for m in mpis for n in entry["ranks"]}, (entry["application"], ran)
        else:
            assert {r["threads"] for r in rows} == {"1", "2"}, entry["application"]


def test_setting_up_again_builds_nothing(runs):
    table, _, (proc, logs) = runs
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    built = [app for app, row in table.items() if row["status"] == "SUCCESS" and row["built_by"] == "spack"]
    # Spack's report of each package it reuses ("[+] <prefix>"), and none of one it builds.
    assert built and all(f"/{app}-" in logs for app in built), logs[-3000:]
    assert "Successfully installed" not in logs and not re.search(r"==> Installing (?!compilers|software)", logs)


def test_an_unreachable_git_source_stops_the_catalog_naming_the_url_and_the_mapping(project, tmp_path):
    """One pinned repository's mapping points nowhere (as if its snapshot were not mapped here,
    or upstream were down): the catalog stops before building, with the URL and the fix."""
    url = next(e["git"] for e in catalog.entries("local", "fast") if e["git"] and e["status"] != "SKIPPED")
    config = tmp_path / "gitconfig"
    listed = subprocess.run(["git", "config", "--global", "--list"], capture_output=True, text=True).stdout
    for line in listed.splitlines():
        key, _, value = line.partition("=")
        if not (key.endswith(".insteadof") and value == url):
            subprocess.run(["git", "config", "--file", config, "--add", key, value], check=True)
    subprocess.run(["git", "config", "--file", config, f"url.{tmp_path}/nowhere.insteadOf", url], check=True)
    proc = subprocess.run(
        ["make", "catalog", "TIER=fast"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, "GIT_CONFIG_GLOBAL": str(config)},
    )
    assert proc.returncode != 0
    assert f"cannot reach {url}" in proc.stderr, proc.stderr[-2000:]
    assert f"git config --global url.<mirror>.insteadOf {url}" in proc.stderr
    assert "ramble workspace setup" not in proc.stdout  # stopped before building anything
