"""hpcaas systems diff A B: what differs between two systems, fact by fact (hpcaas/systemdiff.py)."""

import shutil
import subprocess
import sys

import yaml

from hpcaas import systemdiff, systems
from hpcaas.paths import CONFIGS, ROOT

# The facts the issue asks the diff to show, as its rows name them.
ASKED = [
    "target",
    "cores per node",
    "SMT (threads per core)",
    "NUMA nodes per node",
    "memory per node",
    "clock",
    "L1d cache per core",
    "L2 cache per core",
    "last-level cache per node",
    "network",
    "compilers",
    "MPIs",
    "fabric libraries",
    "OS",
]


def cli(*args, configs=CONFIGS):
    return subprocess.run(
        [sys.executable, "-m", "hpcaas", "systems", "--configs", str(configs), "diff", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )


def test_a_system_against_itself_differs_in_nothing():
    rows = systemdiff.rows("aws-hpc7a-efa", "aws-hpc7a-efa")
    assert [r["fact"] for r in rows if r["fact"] in ASKED] == ASKED
    assert {r["status"] for r in rows} <= {"same", "unknown"}
    assert systemdiff.summary(rows).startswith("hardware: no hardware difference; software: no software difference")


def test_one_changed_fact_is_the_one_difference(tmp_path):
    for name in ("aws-hpc7a-efa", "schema"):
        shutil.copytree(CONFIGS / name, tmp_path / name)
    copy = tmp_path / "aws-hpc7a-efa-copy"
    shutil.copytree(CONFIGS / "aws-hpc7a-efa", copy)
    doc = yaml.safe_load((copy / "system.yaml").read_text())
    doc["name"] = copy.name
    doc["cores_per_socket"]["value"] = 88
    (copy / "system.yaml").write_text(yaml.safe_dump(doc))
    rows = systemdiff.rows("aws-hpc7a-efa", copy.name, tmp_path)
    differ = [r for r in rows if r["status"] == "differs"]
    sockets = systems.value(doc, "sockets")
    assert [(r["fact"], r["part"], r["b"]) for r in differ] == [
        ("cores per node", "hardware", f"{sockets * 88} ({sockets} x 88)")
    ]
    md = systemdiff.markdown(rows, "aws-hpc7a-efa", copy.name)
    assert md.splitlines()[0].startswith(
        f"**aws-hpc7a-efa** vs **{copy.name}**: hardware: cores per node; software: no software difference"
    )
    assert f"| cores per node | {sockets * 96} ({sockets} x 96) | {sockets * 88} ({sockets} x 88) | **differs** |" in md

    proc = cli("aws-hpc7a-efa", copy.name, configs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1].startswith("hardware: cores per node; software: no software difference")


def test_a_paper_system_and_a_cloud_system_differ_where_their_files_do():
    rows = {r["fact"]: r for r in systemdiff.rows("hpe-devcloud-genoa-slingshot", "aws-hpc7a-efa")}
    genoa, aws = (systems.load_system(CONFIGS / n) for n in ("hpe-devcloud-genoa-slingshot", "aws-hpc7a-efa"))
    assert rows["target"]["a"] == systems.value(genoa, "processor.target") == rows["target"]["b"]  # both zen4
    assert rows["target"]["status"] == "same"
    assert rows["network"]["status"] == "differs" and rows["network"]["b"].startswith("efa: EFA")
    assert rows["OS"]["b"] == aws["os"]["value"] and rows["OS"]["status"] == "differs"
    assert "libfabric@" in rows["fabric libraries"]["b"]


def test_an_unknown_system_is_one_line_exit_2():
    proc = cli("aws-hpc7a-efa", "no-such-system")
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"hpcaas systems: {CONFIGS / 'no-such-system'}: (file): an existing system.yaml"


def test_a_reports_opening_section_is_the_diff_from_the_papers_system():
    text = systemdiff.section({"aws-hpc7a-efa"}, ["hpe-devcloud-genoa-slingshot"])
    lines = text.splitlines()
    assert lines[0] == "## How this system differs from the paper's"
    assert lines[2].startswith("**hpe-devcloud-genoa-slingshot** vs **aws-hpc7a-efa**: hardware: ")
    assert "| fact | hpe-devcloud-genoa-slingshot | aws-hpc7a-efa | |" in lines
    assert systemdiff.section({"hpe-devcloud-genoa-slingshot"}, ["hpe-devcloud-genoa-slingshot"]) == ""
