"""`python -m analysis.hpctoolkit` on the two real HPCToolkit databases beside the repository
(tests/hpctoolkit/data/): an OSU allgather MPI profile
(10 ranks x 2 threads) and a 4-rank cpi run, both CPUTIME in microseconds. The numbers below
were measured with hatchet (llnl-hatchet 2026.2.0; hatchet 1.4.0 gives identical frames).
Times are CPU seconds summed over ranks and threads; the databases' resolution is 1 us, so
times are compared to 1e-9 s and percentages to 1e-6. The command runs under
.venv-hpctoolkit, which it makes when missing: without PyPI that fails, and so do these tests."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from testkit import ROOT

DATA = Path(__file__).resolve().parent / "data"  # data/README.md: where the databases come from
SUMMED = "times are CPU seconds summed over ranks and threads"
S, PCT = 1e-9, 1e-6


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "analysis.hpctoolkit", *map(str, args)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    """{database: (stdout, table as read back from the CSV)} for both databases."""
    out = {}
    for name in ("allgather", "cpi"):
        db = DATA / f"hpctoolkit-{name}-database"
        if not (db / "experiment.xml").is_file():
            pytest.fail(f"{db} is missing (tests/hpctoolkit/data/ is part of the repository)")
        csv = tmp_path_factory.mktemp(name) / "table.csv"
        proc = cli(db, "-o", csv, "--top", "5")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        out[name] = (proc.stdout, pd.read_csv(csv))
    return out


def rows(table, n):
    return [(r.function, r.module, r.in_mpi) for r in table.head(n).itertuples()]


def test_allgather_top_functions_and_mpi_share(tables):
    stdout, table = tables["allgather"]
    lines = stdout.splitlines()
    assert lines[0].endswith(f"-allgather-database: 29480 rows, 10 ranks x 2 threads; {SUMMED}")
    assert lines[-2] == "MPI: 99.52% of 26.158368 s (MPI calls and everything below them)"
    assert len(table) == 293 and table["in_mpi"].sum() == 284
    assert rows(table, 5) == [
        ("<unknown procedure> 0xa128 [libinfinipath.so.4.0]", "libinfinipath.so.4.0", True),
        ("<unknown procedure> 0x1c083 [libpsm_infinipath.so.1.16]", "libpsm_infinipath.so.1.16", True),
        ("<unknown procedure> 0x33faf [libpsm_infinipath.so.1.16]", "libpsm_infinipath.so.1.16", True),
        ("<unknown procedure> 0x326b8 [libpsm_infinipath.so.1.16]", "libpsm_infinipath.so.1.16", True),
        ("__GI___sched_yield", "libc-2.17.so", True),
    ]
    assert list(table["exclusive_s"].head(5)) == pytest.approx(
        [8.462784, 4.127545, 1.543427, 1.085948, 0.873768], abs=S
    )
    assert table["share_pct"].iloc[0] == pytest.approx(32.352110, abs=PCT)
    assert table["exclusive_s"].sum() == pytest.approx(26.158368, abs=S)
    assert table.loc[table["in_mpi"], "exclusive_s"].sum() == pytest.approx(26.032845, abs=S)
    # Call-path totals: main, the measured loop's MPI_Allgather, and the wait in MPI_Finalize.
    by_name = table.set_index("function")
    assert by_name.loc["main", "inclusive_s"] == pytest.approx(26.140582, abs=S)
    assert by_name.loc["PMPI_Allgather", "inclusive_s"] == pytest.approx(14.676795, abs=S)
    assert by_name.loc["MPI_Finalize", "inclusive_s"] == pytest.approx(10.008070, abs=S)
    # memcpy sits in loops: counted once, not again through its frame (hatchet keeps both).
    memcpy = by_name.loc["__intel_ssse3_rep_memcpy"]
    assert (memcpy["exclusive_s"], memcpy["inclusive_s"]) == pytest.approx((0.846430, 0.846430), abs=S)


def test_cpi_top_functions_and_mpi_share(tables):
    stdout, table = tables["cpi"]
    lines = stdout.splitlines()
    assert lines[0].endswith(f"-cpi-database: 136 rows, 4 ranks x 1 threads; {SUMMED}")
    assert lines[-2] == "MPI: 100.00% of 3.998242 s (MPI calls and everything below them)"
    assert len(table) == 16 and table["in_mpi"].sum() == 14
    assert rows(table, 2) == [
        ("<unknown procedure>", "libpsm_infinipath.so.1.14", True),
        ("__GI_sched_yield", "libc-2.12.so", True),
    ]
    assert list(table["exclusive_s"].head(2)) == pytest.approx([3.962262, 0.035980], abs=S)
    assert list(table["share_pct"].head(2)) == pytest.approx([99.100104, 0.899896], abs=PCT)
    main = table.set_index("function").loc["main"]
    assert (main["inclusive_s"], main["exclusive_s"], main["in_mpi"]) == (pytest.approx(3.998242, abs=S), 0, False)


@pytest.mark.parametrize("name", ["allgather", "cpi"])
def test_table_is_consistent(tables, name):
    stdout, table = tables[name]
    assert list(table.columns) == ["function", "module", "file", "in_mpi", "inclusive_s", "exclusive_s", "share_pct"]
    assert (table["exclusive_s"] <= table["inclusive_s"] + S).all()
    assert table["share_pct"].sum() == pytest.approx(100, abs=PCT)
    assert table["exclusive_s"].is_monotonic_decreasing
    assert table["inclusive_s"].max() <= table["exclusive_s"].sum() + S
    assert len(stdout.splitlines()) == 1 + 1 + 5 + 2  # header, column names, --top 5, MPI, wrote


def test_databases_it_cannot_read_exit_2(tmp_path):
    sparse = tmp_path / "sparse"
    sparse.mkdir()
    (sparse / "meta.db").touch()
    proc = cli(sparse)
    assert proc.returncode == 2 and "has meta.db but no profile.db, cct.db" in proc.stderr
    for name in ("profile.db", "cct.db"):
        (sparse / name).touch()
    proc = cli(sparse)
    assert proc.returncode == 2 and "no CPUTIME metric in meta.db" in proc.stderr
    proc = cli(tmp_path)
    assert proc.returncode == 2 and "neither meta.db (hpcprof >= 2022.10) nor experiment.xml" in proc.stderr


def test_venv_is_idempotent(tables):
    """Made by the first command; a second venv.sh run finds the stamp and does nothing."""
    proc = subprocess.run([str(ROOT / "analysis/hpctoolkit/venv.sh")], capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
