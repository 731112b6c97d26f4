"""`hpcaas-analyze normalise`: a paper's "normalised w.r.t." figures, on published numbers. SC'23
Table 2 prints each node's times at 1 thread and at its cores and SMT threads, with the speedup
over 1 thread in parentheses: normalising its times to 1 thread (one reference per processor)
gives the inverse of those speedups, as printed."""

import csv
import io

import pytest
from analysis_testkit import cli, ref, write

TABLE2 = "hpcaas-bench-sc23_table2_montecarlo_threads.csv"


def rows(proc):
    assert proc.returncode == 0, proc.stderr
    return list(csv.DictReader(io.StringIO(proc.stdout)))


def test_times_normalised_to_one_thread_are_the_inverse_of_the_printed_speedups():
    out = rows(cli("normalise", ref(TABLE2), "--metric", "execution_time", "--to", "threads=1"))
    printed = {
        (r["processor"], r["threads"]): float(r["value"])
        for r in csv.DictReader(open(ref(TABLE2)))
        if r["metric"] == "speedup_vs_1_thread"
    }
    assert printed
    got = {(r["processor"], r["threads"]): float(r["normalised"]) for r in out}
    assert {k for k, v in got.items() if v == 1} == {(p, "1") for p, _ in printed}
    for cell, speedup in printed.items():
        assert round(1 / got[cell]) == pytest.approx(speedup, abs=1), cell  # the paper rounds to whole x


def test_a_group_without_its_reference_cell_gets_no_number_and_says_why(tmp_path):
    text = (
        "system,workload,ranks,metric,value,unit,status\n"
        "a,cg,32,Time,100,s,SUCCESS\n"
        "a,cg,64,Time,60,s,SUCCESS\n"
        "a,ep,32,Time,,s,FAILED\n"
        "a,ep,64,Time,6,s,SUCCESS\n"
        "a,is,64,Time,3,s,SUCCESS\n"
    )
    out = rows(cli("normalise", write(tmp_path, "r.csv", text), "--metric", "Time", "--to", "ranks=32"))
    by_cell = {(r["workload"], r["ranks"]): r for r in out}
    assert float(by_cell["cg", "64"]["normalised"]) == 0.6
    assert by_cell["ep", "64"]["normalised"] == "" and "reference cell (ranks=32) failed" in by_cell["ep", "64"]["note"]
    assert by_cell["is", "64"]["normalised"] == "" and by_cell["is", "64"]["note"] == "no reference cell (ranks=32)"


@pytest.mark.parametrize(
    "to, expected",
    [
        (["ranks=33"], "ranks: a value of the column for 'Time' (one of 32, 64); '33' is not there"),
        (["ranks"], "--to: column=value pairs naming the reference cell; got 'ranks'"),
        (["nodes=1"], "nodes: a column of the file (a column of --to)"),
    ],
)
def test_a_reference_cell_the_file_lacks_is_bad_input(tmp_path, to, expected):
    path = write(tmp_path, "r.csv", "system,ranks,metric,value,unit\na,32,Time,1,s\na,64,Time,2,s\n")
    proc = cli("normalise", path, "--metric", "Time", "--to", *to)
    assert proc.returncode == 2 and proc.stdout == ""
    assert expected in proc.stderr
