"""A small preset shrinks the cost, not the meaning: rendered for local-slurm (this machine as
emulated nodes), each study's small preset still measures what its paper measures. Each rule is
checked on the real dry-run (`make dry-run ... SCALE=small`), against the facts make system found:
- STREAM: every array at least 4 x the node's last-level cache (STREAM's own rule);
- HPCG: each node's share of the matrix at least 4 x its last-level cache (27 nonzeros of 8 + 4
  bytes per row, a lower bound of HPCG's storage), so the solve streams from memory."""

import re
import subprocess

import pytest
import yaml
from testkit import ROOT

from hpcaas.paths import CONFIGS, WORKSPACES

SYSTEM = "local-slurm"
RULES = ("stream", "hpcg")  # applications whose small preset has a size rule


def small_studies():
    """(study, application) for each study with a small preset that runs a ruled application."""
    out = []
    for folder in sorted(WORKSPACES.glob("*/study.yaml")):
        doc = yaml.safe_load(folder.read_text())
        if "small" not in (doc.get("scales") or {}):
            continue
        apps = (doc.get("ramble") or {}).get("applications", {})
        out += [(folder.parent.name, app) for app in apps if app in RULES]
    return out


def llc_bytes() -> int:
    facts = yaml.safe_load((CONFIGS / SYSTEM / "system.yaml").read_text())
    return int(facts["last_level_cache_mib"]["value"] * 2**20)


def dry_run(study):
    proc = subprocess.run(
        [".venv/bin/hpcaas", "dry-run", study, SYSTEM, "--scale", "small"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return ROOT / proc.stdout.strip().splitlines()[-1]


def test_ruled_studies_are_found():
    assert {app for _, app in small_studies()} == set(RULES)


@pytest.mark.parametrize("study, app", small_studies())
def test_small_preset_leaves_the_cache(project, study, app):
    ws = dry_run(study)
    llc = llc_bytes()
    if app == "stream":
        specs = (ws / "software").glob("*/spack.yaml")
        sizes = [int(n) for f in specs for n in re.findall(r"stream_array_size=([0-9]+)", f.read_text())]
        assert sizes and all(8 * n >= 4 * llc for n in sizes), (sizes, llc)
    if app == "hpcg":
        runs = list((ws / "experiments/hpcg").glob("*/*"))
        assert runs
        for run in runs:
            nx, ny, nz = map(int, (run / "hpcg.dat").read_text().splitlines()[2].split())
            script = (run / "execute_experiment").read_text()
            nodes = int(re.search(r"--nodes=([0-9]+)", script)[1])
            ranks = int(re.search(r"--ntasks=([0-9]+)", script)[1])
            per_node = nx * ny * nz * (ranks // nodes) * 27 * 12
            assert per_node >= 4 * llc, (run.name, nx, ranks, nodes, llc)
            assert nx % 8 == 0
