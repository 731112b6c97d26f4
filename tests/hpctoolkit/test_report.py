"""The study report's "Where the time goes" section, from a real profiled run: `make reproduce
STUDY=npb-4ppn SYSTEM=local-slurm SCALE=small PROFILE=hpctoolkit` (2026-11-24; NPB class A,
1 and 2 ranks on 2 emulated nodes; data/npb-4ppn-small holds its results.csv and profiles.csv)."""

import shutil

import pandas as pd
from testkit import ROOT

from hpcaas import studies

DATA = ROOT / "tests/hpctoolkit/data/npb-4ppn-small"


def test_report_shows_top_functions_and_the_mpi_share_per_swept_value(tmp_path):
    for name in ("results.csv", "profiles.csv"):
        shutil.copy(DATA / name, tmp_path / name)
    assert studies.report("npb-4ppn", str(tmp_path / "results.csv"), str(tmp_path)) == 0
    report = (tmp_path / "report.md").read_text()
    section = report.split("## Where the time goes (HPCToolkit)")[1].split("\n## ")[0]
    prof = pd.read_csv(DATA / "profiles.csv")
    for experiment, table in prof.groupby("experiment"):
        top = table.sort_values("exclusive_s", ascending=False).iloc[0]
        share = table["mpi_share_pct"].iloc[0]
        assert f"### {experiment}: {share:.1f}% of the time in MPI" in section
        assert f"| {top['function']} | {top['module']} |" in section
    # CG's own kernel is where one rank spends its time; with two ranks MPI takes a share.
    assert "### npb.cg.npb-cg.A-local-slurm-gcc-openmpi-loopback-1nodes-1ppn: 0.0% of the time in MPI" in section
    assert "### npb.cg.npb-cg.A-local-slurm-gcc-openmpi-loopback-2nodes-1ppn: 33.2% of the time in MPI" in section
    assert "| experiment | value | application | workload | nodes | ranks |" in section
    assert (tmp_path / "mpi-share.png").stat().st_size > 0 and "![MPI share](mpi-share.png)" in section
