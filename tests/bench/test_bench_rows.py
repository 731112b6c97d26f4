"""make bench's analysis of many rows (bench/rows.py) on a small file: the generated CSV has the
schema's columns and the timed analysis runs every step (the timing itself is make bench's)."""

import json
import subprocess
import sys

from testkit import ROOT

from analysis import files
from analysis.schema import EXTRA_COLUMNS, RESULT_COLUMNS


def test_the_generated_rows_are_collects_format_and_the_analysis_runs(tmp_path):
    csv = tmp_path / "results.csv"
    subprocess.run([sys.executable, "-m", "bench.rows", "--generate", csv, "6000"], cwd=ROOT, check=True)
    df = files.read_results(str(csv))
    assert list(df.columns)[: len(RESULT_COLUMNS + EXTRA_COLUMNS)] == RESULT_COLUMNS + EXTRA_COLUMNS
    assert len(df) == 6000  # enough experiments for both MPIs the analysis compares
    out = subprocess.run(
        [sys.executable, "-m", "bench.rows", csv, tmp_path / "scaling.png"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
        env={"HPCAAS_CACHE": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"},
    )
    result = json.loads(out.stdout)
    assert list(result["times"]) == ["imports", "read", "scaling", "compare", "plot"]
    assert result["plotting_before_plot"] is False
    assert (tmp_path / "scaling.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
