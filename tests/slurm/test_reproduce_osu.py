"""make reproduce of the OSU study's small preset through Slurm: S2's two ranks on two nodes
(ICACC'16 Fig. 1), here two emulated nodes over loopback, every repeat of osu_latency and osu_bw
through sbatch, OSU's whole message-size table, and the report's Fig. 1 tables."""

import csv

import pytest
import yaml
from slurm_helpers import ROOT, Cluster
from testkit import place

pytestmark = pytest.mark.long  # make test-long (scripts/test.sh --tier long)

STUDY = "osu-latency-bandwidth"
SYSTEM = ROOT / "configs" / "local-slurm"
PLACE = place(STUDY, "local-slurm", "small")
LARGEST = "Message Size: 4194304"  # OSU's default largest message, the paper's plotted range


def _name(spec):
    """A compiler's or MPI's name in experiment names (hpcaas/render.py)."""
    return spec.lstrip("%^").split("@")[0].replace("-", "")


def _system_roles():
    """(compiler, mpi, fabric) of local-slurm, as make system wrote them."""
    defs = {
        k: v
        for item in yaml.safe_load((SYSTEM / "spack/definitions.yaml").read_text())["definitions"]
        for k, v in item.items()
    }
    fabric = yaml.safe_load((SYSTEM / "ramble/variables.yaml").read_text())["variables"]["fabric"]
    return _name(defs["default_compiler"][0]), _name(defs["default_mpi"][0]), fabric


def test_osu_small_preset_through_slurm(project, slurm_cluster: Cluster):
    slurm_cluster.run(
        "make", "reproduce", f"STUDY={STUDY}", "SYSTEM=local-slurm", "SCALE=small", cwd=ROOT, timeout=1800
    )

    compiler, mpi, fabric = _system_roles()
    rows = list(csv.DictReader((PLACE.latest / "results.csv").open()))
    names = {
        f"osu-micro-benchmarks.{wl}.osu-{short}-local-slurm-{compiler}-{mpi}-{fabric}-2nodes.{i}"
        for wl, short in (("osu_latency", "latency"), ("osu_bw", "bw"))
        for i in range(1, 11)
    }
    assert {r["experiment"] for r in rows} == names
    assert {r["status"] for r in rows} == {"SUCCESS"}
    assert {(r["nodes"], r["ranks"], r["fabric"]) for r in rows} == {("2", "2", fabric)}
    for metric, unit in (("Latency", "us"), ("Bandwidth", "MB/s")):
        largest = [r for r in rows if r["metric"] == metric and r["context"] == LARGEST]
        assert len(largest) == 10 and {r["unit"] for r in largest} == {unit}
        assert all(float(r["value"]) > 0 for r in largest)

    script = (
        PLACE.workspace
        / "experiments/osu-micro-benchmarks/osu_latency"
        / f"osu-latency-local-slurm-{compiler}-{mpi}-{fabric}-2nodes.3/execute_experiment"
    ).read_text()
    assert "#SBATCH --nodes=2" in script and "#SBATCH --ntasks=2" in script

    report = (PLACE.latest / "report.md").read_text()
    # The report opens with how local-slurm differs from the paper's systems (after its title).
    assert report.split("\n## ")[1].startswith("How this system differs from the paper's"), report[:600]
    assert "## hpcaas-analyze table --metric Latency --rows context --cols system fabric" in report
    assert "failed (exit" not in report
