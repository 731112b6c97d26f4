"""Bad input through the real command line: one line naming the file, the column (or key) and
what was expected; exit status 2; no traceback; no output file written or changed."""

import json

import pytest
from analysis_testkit import cli, ref, write

GOOD = "system,mpi,nodes,metric,value,unit\na,x,1,t,10,s\na,x,2,t,6,s\na,y,1,t,12,s\na,y,2,t,7,s\n"

CASES = {
    # name: (files {name: text}, args (FILE = the first file), expected key, expected words)
    "missing column": (
        {"r.csv": "system,nodes,metric,unit\na,1,t,s\n"},
        ["table", "FILE", "--metric", "t"],
        "value",
        "a column of the file",
    ),
    "metric absent": (
        {"r.csv": GOOD},
        ["scaling", "FILE", "--metric", "walltime"],
        "metric",
        "'walltime' is not there",
    ),
    "non-numeric value": (
        {"r.csv": GOOD.replace("a,x,2,t,6,s", "a,x,2,t,fast,s")},
        ["compare", "FILE", "--metric", "t", "--axis", "mpi", "--a", "x", "--b", "y"],
        "value",
        "line 3 has 'fast'",
    ),
    "infinite value": (
        {"r.csv": GOOD.replace("a,x,2,t,6,s", "a,x,2,t,inf,s")},
        ["table", "FILE", "--metric", "t"],
        "value",
        "a finite number",
    ),
    "duplicate configuration": (
        {"r.csv": GOOD + "a,x,2,t,6.5,s\n"},
        ["best", "FILE", "--metric", "t"],
        "system,mpi,nodes",
        "lines 3 and 6 are the same configuration",
    ),
    "configuration split by a column not grouped": (
        {"r.csv": GOOD},
        ["scaling", "FILE", "--metric", "t", "--by", "system"],
        "system,nodes",
        "differ in mpi",
    ),
    "non-integer nodes": (
        {"r.csv": GOOD.replace("a,y,2,t", "a,y,two,t")},
        ["scaling", "FILE", "--metric", "t"],
        "nodes",
        "a whole number",
    ),
    "unknown direction": (
        {"r.csv": GOOD.replace(",t,", ",widgets,").replace(",s\n", ",count\n")},
        ["best", "FILE", "--metric", "widgets"],
        "metric",
        "--higher-is-better",
    ),
    "ragged row": (
        {"r.csv": GOOD + "a,x,4,t,3,s,extra\n"},
        ["table", "FILE", "--metric", "t"],
        "line 6",
        "as many fields as the header",
    ),
    "empty file": ({"r.csv": ""}, ["repeats", "FILE"], "(header)", "the file is empty"),
    "missing file": ({}, ["table", "nowhere.csv", "--metric", "t"], "(file)", "an existing CSV file"),
    "bad price": (
        {"r.csv": GOOD, "p.csv": "system,price_per_node_hour,currency,date,source\na,cheap,USD,2024,x\n"},
        ["cost", "FILE", "--metric", "t", "--prices", "p.csv"],
        "price_per_node_hour",
        "a number",
    ),
    "usage": ({"r.csv": GOOD}, ["scaling", "FILE"], "scaling", "required: --metric"),
    "workspace without results": ({"ws/readme": "x"}, ["collect", "ws"], "(file)", "workspace analyze -f json"),
    "broken results JSON": ({"ws/results.latest.json": '{"experiments": ['}, ["collect", "ws"], "line 1", "valid JSON"),
    "experiment without status": (
        {"ws/results.latest.json": json.dumps({"experiments": [{"name": "app.wl.e1", "CONTEXTS": []}]})},
        ["collect", "ws"],
        "experiments[0] (app.wl.e1).RAMBLE_STATUS",
        "the experiment's status",
    ),
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_bad_input_is_one_line_and_exit_2(case, tmp_path):
    files, args, key, words = CASES[case]
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        write(tmp_path, name, text)
    first = str(tmp_path / next(iter(files))) if files else str(tmp_path / "nowhere.csv")
    args = [
        first if a == "FILE" else str(tmp_path / a) if a in files or a in ("ws", "nowhere.csv") else a for a in args
    ]
    out = tmp_path / "out.csv"
    out.write_text("previous\n")
    proc = cli(*args, "-o", out) if case != "usage" else cli(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    line = lines[0]
    assert line.startswith("hpcaas-analyze: ")
    expected_file = {"usage": "command line", "bad price": str(tmp_path / "p.csv")}.get(case, first)
    if args[0] == "collect":
        expected_file = str(tmp_path / "ws" / "results.latest.json")
    assert line.startswith(f"hpcaas-analyze: {expected_file}: "), line
    assert f": {key}: " in line, line
    assert words in line, line
    assert out.read_text() == "previous\n"  # nothing (half-)written
    assert proc.stdout == ""


def test_a_reference_cell_without_a_value_is_never_a_number():
    proc = cli(
        "table",
        ref("hpcaas-bench-sc23_table8_mpas_compilers.csv"),
        "--metric",
        "execution_time",
        "--rows",
        "compiler",
        "--cols",
        "compiler_flags",
    )
    assert proc.returncode == 0, proc.stderr
    assert "gnu,s,452.0,MISSING" in proc.stdout.splitlines()
