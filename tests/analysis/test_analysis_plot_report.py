"""Figures and the report page: real PNGs, and a page whose tables say what the data says."""

import struct

from analysis_testkit import WORKSPACE, cli, ref

from analysis import files, plot, scaling
from analysis.directions import LOWER

PNG = b"\x89PNG\r\n\x1a\n"


def png_size(data):
    assert data[:8] == PNG
    return struct.unpack(">II", data[16:24])


def test_scaling_figure_from_the_gromacs_table():
    path = ref("arm-tx2-pasc19_table15_gromacs_performance.csv")
    scaled = scaling.scaling(files.read_results(path), "walltime", LOWER, path)
    width, height = png_size(plot.scaling_figure(scaled, ["system"]))
    assert width > 300 and height > 200


def test_scaling_figure_with_many_curves_draws_their_range():
    import pandas as pd

    rows = pd.DataFrame(
        {
            "system": [f"s{i}" for i in range(40) for _ in (1, 2)],
            "nodes": [1, 2] * 40,
            "metric": "time",
            "unit": "s",
            "value": [10.0, 6.0] * 40,
        }
    )
    rows["nodes"] = rows["nodes"].astype("Int64")
    scaled = scaling.scaling(rows, "time", LOWER, "mem")
    assert png_size(plot.scaling_figure(scaled, ["system"]))[0] > 300


def test_plot_cli_scaling_and_bars(tmp_path):
    out = tmp_path / "s.png"
    proc = cli(
        "plot", ref("hpcaas-bench-sc23_table6_openradioss_mpi_fabric.csv"), "--metric", "execution_time", "-o", out
    )
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:8] == PNG
    bars = tmp_path / "b.png"
    proc = cli(
        "plot",
        ref("hpcaas-bench-sc23_table8_mpas_compilers.csv"),
        "--metric",
        "execution_time",
        "--kind",
        "bars",
        "--axis",
        "compiler_flags",
        "-o",
        bars,
    )
    assert proc.returncode == 0, proc.stderr
    assert bars.read_bytes()[:8] == PNG


def test_report_of_a_workspace(tmp_path):
    out = tmp_path / "report"
    proc = cli("report", WORKSPACE, "-o", out)
    assert proc.returncode == 0, proc.stderr
    md = (out / "report.md").read_text()
    html = (out / "report.html").read_text()
    assert md.startswith("# Report: ws-synthetic")
    assert "10 experiments: 7 SUCCESS, 3 FAILED" in md
    assert "## Performance (ns/day)" in md and "## Wall time (s)" in md
    assert "### Scaling (relative to the smallest node count)" in md
    assert "### Run-to-run variation" in md
    figures = sorted(p.name for p in out.glob("*.png"))
    assert "scaling-performance.png" in figures
    for name in figures:
        assert f"![{name}]({name})" in md and f'<img src="{name}"' in html
        assert (out / name).read_bytes()[:8] == PNG
    assert html.count("<table>") >= 4 and "FAILED" in html
