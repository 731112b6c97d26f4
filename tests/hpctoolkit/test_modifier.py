"""The `hpctoolkit` Ramble modifier, proven by what Ramble generates: a throwaway workspace with
our hpcc app (2 ranks, no package manager), set up with --dry-run, and the exact lines of each
experiment's execute_experiment. Then the results path: the generated echo line, Ramble's
analyze and hpcaas-analyze collect. Needs Ramble (fails, never skips, without it)."""

import json
import shutil
import subprocess

import pandas as pd
import pytest
from testkit import ROOT, run

# Our repo's modifiers, for Ramble processes that may not have it registered in the site scope
# (test_registered_with_ramble checks that scope). A repo listed twice is merged by Ramble.
RAMBLE = f"ramble -c modifier_repos:[{ROOT}/ramble-repo]"
EVENTS = "-e CPUTIME -e PAPI_TOT_CYC@4000000"

WORKSPACE = f"""ramble:
  variants:
    package_manager: null
  variables:
    mpi_command: mpirun -n {{n_ranks}}
    batch_submit: '{{execute_experiment}}'
    processes_per_node: '2'
    n_nodes: '1'
    n_threads: '1'
    n_ranks: '2'
    hpcc_path: /usr
  applications:
    hpcc:
      workloads:
        sized:
          experiments:
            profiled:
              modifiers:
              - name: hpctoolkit
            events:
              variables:
                hpctoolkit_events: '{EVENTS}'
              modifiers:
              - name: hpctoolkit
            plain: {{}}
"""


@pytest.fixture(scope="module")
def workspace(project, tmp_path_factory):
    ws = tmp_path_factory.mktemp("hpctoolkit-ws")
    (ws / "configs").mkdir()
    (ws / "configs/ramble.yaml").write_text(WORKSPACE)
    run(f"{RAMBLE} -D {ws} workspace setup --dry-run", timeout=600)
    return ws


def script(ws, exp):
    """(run dir, lines of the experiment's generated execute_experiment)."""
    run_dir = ws / "experiments/hpcc/sized" / exp
    return run_dir, (run_dir / "execute_experiment").read_text().splitlines()


def expected_lines(d, events):
    m, db, log = f"{d}/hpctoolkit-measurements", f"{d}/hpctoolkit-database", f"{d}/hpctoolkit.log"
    return [
        f"rm -rf {m} {db}",
        f'mpirun -n 2 hpcrun {events} -o {m} hpcc >> "{d}/{d.name}.out" 2>&1',
        f'hpcstruct {m} >> "{log}" 2>&1',
        f'hpcprof -o {db} {m} >> "{log}" 2>&1',
        f'test -d {db} && echo "HPCToolkit database: {db} ($(ls {m}/*.hpcrun | wc -l) profiles)"' f' >> "{log}" 2>&1',
    ]


@pytest.mark.parametrize("exp,events", [("profiled", "-e CPUTIME"), ("events", EVENTS)])
def test_launch_line_wrapped_and_database_built_after(workspace, exp, events):
    run_dir, lines = script(workspace, exp)
    want = expected_lines(run_dir, events)
    for line in want:
        assert line in lines, f"missing from execute_experiment:\n{line}\n--- got\n" + "\n".join(lines)
    # In this order, right after one another: clean, run under hpcrun, then the database.
    start = lines.index(want[0])
    assert lines[start : start + len(want)] == want
    # Only the MPI executable is profiled: the serial input writer runs as it is.
    writer = [line for line in lines if line.startswith("printf ")]
    assert len(writer) == 1 and "hpcrun" not in writer[0]


def test_events_variable_changes_the_line(workspace):
    default = [line for line in script(workspace, "profiled")[1] if line.startswith("mpirun")]
    changed = [line for line in script(workspace, "events")[1] if line.startswith("mpirun")]
    assert "hpcrun -e CPUTIME -o " in default[0] and "PAPI_TOT_CYC" not in default[0]
    assert f"hpcrun {EVENTS} -o " in changed[0]


def test_experiments_without_the_modifier_are_untouched(workspace):
    run_dir, lines = script(workspace, "plain")
    assert f'mpirun -n 2 hpcc >> "{run_dir}/plain.out" 2>&1' in lines
    tools = ("hpcrun", "hpcstruct", "hpcprof", "HPCToolkit database")
    assert not [line for line in lines if any(tool in line for tool in tools)]


def test_database_path_reaches_the_results(workspace):
    """Run the generated echo line on a fake measurement (2 profiles) and let Ramble analyze."""
    run_dir, lines = script(workspace, "profiled")
    echo = expected_lines(run_dir, "-e CPUTIME")[-1]
    (run_dir / "hpctoolkit-measurements").mkdir(exist_ok=True)
    for rank in (0, 1):
        (run_dir / f"hpctoolkit-measurements/hpcc-00000{rank}-000-a8c0-1-0.hpcrun").touch()
    (run_dir / "hpctoolkit-database").mkdir(exist_ok=True)
    subprocess.run(["bash", "-c", echo], cwd=run_dir, check=True)
    # hpcc's own success criteria read its output: a real 2-rank hpcc output from this project.
    shutil.copy(ROOT / "tests/apps/hpcc/logs/hpcc-1.5.0-openmpi-2ranks.txt", run_dir / "hpccoutf.txt")
    (run_dir / "ramble_status.json").write_text(json.dumps({"experiment_status": "COMPLETE"}))
    run(f"{RAMBLE} -D {workspace} workspace analyze -f json", timeout=600)

    results = json.loads((workspace / "results.latest.json").read_text())
    exp = next(e for e in results["experiments"] if e["name"] == "hpcc.sized.profiled")
    assert exp["RAMBLE_STATUS"] == "SUCCESS"
    assert exp["RAMBLE_VARIABLES"]["hpctoolkit_database_dir"] == f"{run_dir}/hpctoolkit-database"
    foms = [(c["name"], f) for c in exp["CONTEXTS"] for f in c["foms"] if f["origin"] == "hpctoolkit"]
    assert foms == [
        (
            f"{run_dir}/hpctoolkit-database",
            {
                "name": "hpctoolkit profiles",
                "value": "2",
                "units": "",
                "origin": "hpctoolkit",
                "origin_type": "modifier",
            },
        )
    ]

    # The project's CSV keeps the experiment a success (a path as FOM value would fail it).
    csv = workspace / "results.csv"
    run(f"hpcaas-analyze collect {workspace} -o {csv}")
    rows = pd.read_csv(csv)
    profiled = rows[rows["experiment"] == "hpcc.sized.profiled"]
    assert set(profiled["status"]) == {"SUCCESS"}
    row = profiled[profiled["metric"].str.endswith("hpctoolkit profiles")].iloc[0]
    assert (row["value"], row["context"]) == (2.0, f"{run_dir}/hpctoolkit-database")


def test_registered_with_ramble(project):
    """`ramble info` finds the modifier with the project's own Ramble configuration. Ramble
    looks for modifiers in the `modifier_repos` config section, not `repos`: make setup
    (scripts/configure.sh) must list ramble-repo there too."""
    proc = run("ramble info --type modifiers hpctoolkit", check=False)
    assert proc.returncode == 0 and "Modifier: hpctoolkit" in proc.stdout, (
        "Ramble does not know ramble-repo's modifiers: add ramble-repo to modifier_repos in "
        f"Ramble's site scope (scripts/configure.sh)\n{proc.stdout[-1500:]}{proc.stderr[-1500:]}"
    )
