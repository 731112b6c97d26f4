"""Every application's FOM regexes against real output logs, through `make foms` (Ramble's
own definitions and matching). Each tests/apps/<app>/cases.yaml lists real logs, where they
came from, the exact values Ramble must extract, whether the run must count as a success and, when
not, the success criteria it fails (`failed`); a log of several appended runs says how many (`runs`);
`absent` names results the log must not give (a run block's figure it does not print). A log kept
compressed as it was published (`.bz2`) is read decompressed."""

import bz2
import hashlib
import json
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from testkit import ROOT, app_key, cache_folder, run

CASES = [
    (case_file.parent.name, case)
    for case_file in sorted((ROOT / "tests/apps").glob("*/cases.yaml"))
    for case in yaml.safe_load(case_file.read_text())
]


def readable(log, tmp):
    """LOG itself, or for a compressed one its text in TMP."""
    if log.suffix != ".bz2":
        return str(log)
    out = tmp / log.stem
    out.write_bytes(bz2.decompress(log.read_bytes()))
    return str(out)


def case_key(app: str, case: dict) -> str:
    """A case's key in the cache of extractions: its log, workload and variables, and every
    definition its extraction reads."""
    log = ROOT / "tests/apps" / app / case["log"]
    what = json.dumps([app, case.get("workload"), case.get("vars", {})], sort_keys=True)
    return app_key(app, log.relative_to(ROOT), hashlib.sha256(log.read_bytes()).hexdigest(), what)


@pytest.fixture(scope="module")
def extracted(project, tmp_path_factory):
    """Every case through `scripts/foms.py --batch` (what `make foms` runs, one Ramble session
    for all logs instead of one per log), in CASES' order: [{"foms": {printed name: (value, units)},
    "statuses": [...]}, ...], a printed name as `make foms` prints it: `[<context>=<value> ]<fom>`.
    A case whose log and definitions are unchanged since Ramble last extracted it on this machine
    is read from the cache ($HPCAAS_CACHE/foms/), so only new or changed cases go through Ramble."""
    tmp = tmp_path_factory.mktemp("foms")
    store = cache_folder("foms")
    cases = [
        {
            "app": app,
            "log": readable(ROOT / "tests/apps" / app / case["log"], tmp),
            "workload": case.get("workload"),
            "vars": case.get("vars", {}),
        }
        for app, case in CASES
    ]
    keys = [case_key(app, case) for app, case in CASES]
    todo = [i for i, k in enumerate(keys) if not (store / f"{k}.json").is_file()]
    if todo:
        (tmp / "cases.json").write_text(json.dumps([cases[i] for i in todo]))
        run(f"ramble python scripts/foms.py --batch {tmp}/cases.json {tmp}/out.json", timeout=900)
        store.mkdir(parents=True, exist_ok=True)
        for i, got in zip(todo, json.loads((tmp / "out.json").read_text())):
            (store / f"{keys[i]}.json.tmp").write_text(json.dumps(got))
            os.replace(store / f"{keys[i]}.json.tmp", store / f"{keys[i]}.json")
    out = [json.loads((store / f"{k}.json").read_text()) for k in keys]
    return [{**got, "foms": {f"{c} {n}" if c else n: (v, u) for c, n, v, u in got["foms"]}} for got in out]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[f"{a}:{Path(c['log']).name}" for a, c in CASES])
def test_foms_from_real_log(extracted, i):
    app, case = CASES[i]
    log = ROOT / "tests/apps" / app / case["log"]
    assert case.get("origin"), f"{log}: say where the log came from"
    got = extracted[i]
    foms, passed = got["foms"], "SUCCESS" in got["statuses"]
    if case["success"]:
        assert foms and passed, f"{log}: statuses {got['statuses']}, {len(foms)} FOMs"
    else:
        assert not (foms and passed), f"a failed run passed {app}'s success criteria: {log}"
        assert case.get("failed"), f"{log}: name the success criteria the failed run misses (failed: [...])"
        assert got["failed"] == case["failed"], f"{log}: failed criteria"
    # A log of one run reads whole; one of several appended runs, its last (and says so).
    runs = case.get("runs", 1)
    if runs == 1:
        assert got["note"] is None, got["note"]
    else:
        assert f" holds {runs} runs of {app} " in got["note"], got["note"]
    for key, expected in case.get("foms", {}).items():
        assert key in foms, f"{key} not extracted; got {sorted(foms)[:20]}"
        value, units = foms[key]
        exp_value, exp_units = expected
        assert float(value) == pytest.approx(float(exp_value), rel=1e-12), key
        assert units == exp_units, key
    for key in case.get("absent", []):
        assert key not in foms, f"{log}: {key} extracted, but the log does not print it there"
    if "count" in case:
        assert len(foms) == case["count"]


def make_foms(app, log, *args):
    return subprocess.run(
        ["make", "-s", "foms", f"APP={app}", f"LOG={log}", *args], cwd=ROOT, capture_output=True, text=True
    )


# stream-5.10-local-10M-2threads.txt as `make foms` prints it: stream has three workloads, each
# extracting the same FOMs, and each is printed once.
STREAM_10M = (
    """Bytes per element\t8\tbytes
Array size\t10000000\telements
Offset\t0\telements
Array memory\t76.3\tMiB
Total memory\t228.9\tMiB
Number of iterations per thread\t10\t
Threads requested\t2\t
Number of threads\t2\t
Clock granularity\t1\tmicroseconds
Test duration estimate\t10109\tmicroseconds
"""
    + "".join(
        f"{op} top rate\t{rate}\tMB/s\n{op} average time\t{avg}\ts\n{op} min time\t{lo}\ts\n"
        f"{op} max time\t{hi}\ts\n"
        for op, rate, avg, lo, hi in (
            ("Copy", "20005.0", "0.013100", "0.007998", "0.017752"),
            ("Scale", "21716.0", "0.009770", "0.007368", "0.016468"),
            ("Add", "21729.3", "0.013837", "0.011045", "0.016665"),
            ("Triad", "17183.3", "0.015663", "0.013967", "0.016267"),
        )
    )
    + "Validation tolerance\t1.000000e-13\t\n"
)


def test_make_foms_prints_each_fom_once_per_context(project):
    got = make_foms("stream", ROOT / "tests/apps/stream/logs/stream-5.10-local-10M-2threads.txt")
    assert (got.returncode, got.stdout, got.stderr) == (0, STREAM_10M, "")


def test_make_foms_leaves_out_requested_criteria_without_the_experiment(project):
    """HPCC's fallback run (asked for a 1 x 3 grid on 2 ranks, it ran N=3520 on 1 x 2) succeeded as a
    run: from elsewhere it is a success. Given the experiment's Q, requested-q fails it, by name."""
    log = ROOT / "tests/apps/hpcc/logs/hpcc-1.5.0-openmpi-2ranks-grid-3x1-fallback.txt"
    alone = make_foms("hpcc", log, "WORKLOAD=sized")
    assert alone.returncode == 0 and "Summary=Summary HPL_N\t3520\t" in alone.stdout.splitlines()
    assert alone.stderr == ""
    asked = make_foms("hpcc", log, "WORKLOAD=sized", "VARS=n_ranks=2 hpl_q=3")
    assert asked.returncode != 0 and asked.stdout == alone.stdout
    assert asked.stderr.splitlines()[0] == f"make foms: {log} does not meet hpcc's success criteria: failed requested-q"


def test_make_foms_names_the_failed_criteria(project):
    log = ROOT / "tests/apps/hpl/logs/hpl-2.3-openblas-2ranks-threshold-1e-9.txt"
    got = make_foms("hpl", log, "WORKLOAD=local")
    assert got.returncode != 0
    assert got.stderr.splitlines()[0] == (
        f"make foms: {log} does not meet hpl's success criteria: " "failed verified, tests-passed"
    )
    usage = subprocess.run(["make", "-s", "foms", "APP=hpcc"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode != 0 and "usage: make foms" in usage.stderr


def test_make_foms_reads_the_last_of_appended_runs(project):
    """Two HPCC runs appended to one hpccoutf.txt (N=1000, then N=1200): the second is reported,
    and stderr says which lines started runs."""
    log = ROOT / "tests/apps/hpcc/logs/hpcc-1.5.0-openmpi-2ranks-appended-N1000-N1200.txt"
    got = make_foms("hpcc", log, "WORKLOAD=sized")
    lines = got.stdout.splitlines()
    assert got.returncode == 0
    assert "Summary=Summary HPL_N\t1200\t" in lines and "Summary=Summary HPL_N\t1000\t" not in lines
    assert "Summary=Summary HPL_Tflops\t0.00064004\tTflops" in lines
    assert got.stderr == (
        f"make foms: {log} holds 2 runs of hpcc (lines 2, 586 open one, matching its run_start_regex "
        "'This is the DARPA/DOE HPC Challenge Benchmark version'): reporting the last one, "
        "from line 586\n"
    )


def test_without_run_start_regex_the_whole_file_is_read(project, tmp_path):
    """An application that does not say how a run starts: the whole log, no note."""
    log = ROOT / "tests/apps/hpcc/logs/hpcc-1.5.0-openmpi-2ranks-appended-N1000-N1200.txt"
    script = tmp_path / "last_run.py"
    script.write_text(f"""import importlib.util
spec = importlib.util.spec_from_file_location("foms", "{ROOT}/scripts/foms.py")
foms = importlib.util.module_from_spec(spec)
spec.loader.exec_module(foms)
print(foms.last_run("hpcc", type("NoRunStart", (), {{}}), "{log}", "{tmp_path}", 0))
""")
    out = run(f"ramble python {script}").stdout.strip().splitlines()[-1]
    assert out == f"('{log}', None)"


@pytest.mark.parametrize("content", [b"\x7fELF\x02\x01\x01\x00\xd0\xff binary", None], ids=["binary", "missing"])
def test_a_log_that_is_not_a_text_file_is_one_line_and_exit_2(project, tmp_path, content):
    log = tmp_path / "run.out"
    if content is not None:
        log.write_bytes(content)
    proc = run(f"make -s foms APP=hpcc LOG={log}", check=False)
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("make: ***")]
    assert proc.returncode == 2 and len(errors) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert errors[0].startswith(f"make foms: LOG: {log}: ")
