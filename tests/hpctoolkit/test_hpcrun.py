"""HPCToolkit for real: hpcrun measures a small MPI program built here with the system's Open MPI
(mpi_imbalance.c beside this file, 2 ranks), hpcstruct and hpcprof turn the measurements into a
database, and the project's reader (`python -m analysis.hpctoolkit`) reads it. The program
measures its own CPU time in its compute function and in its MPI calls; the profile must put
those functions on the call paths and attribute them about that time.

HPCToolkit is the one Spack builds from environments/hpctoolkit (make catalog's slow tier: hours
cold on a small machine), so these tests are in the slow tier (make test-slow); without it
installed they fail (never skip) with the command that installs it."""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml
from testkit import ROOT, run

pytestmark = pytest.mark.slow

HERE = Path(__file__).resolve().parent
ENVIRONMENT = ROOT / "environments/hpctoolkit"
RANKS = 2  # rank 0 sends to rank 1: the program's MPI_Send/MPI_Recv pair needs both
STEPS, UNIT = 20, 4_000_000  # a few CPU seconds per rank
EVENT = "CPUTIME@1000"  # CPU-time sampling every 1000 us: thousands of samples per rank
# Sampling error and what hpcrun itself spends in the program's functions: what the profile
# attributes to a function must be within this fraction of the CPU time the program measured.
TOLERANCE = 0.2
MPI_CALLS = ("MPI_Send", "MPI_Recv", "MPI_Allreduce")


def local(rel):
    return yaml.safe_load((ROOT / "configs/local" / rel).read_text())


def environment_spec():
    """The HPCToolkit spec environments/hpctoolkit builds."""
    return yaml.safe_load((ENVIRONMENT / "spack.yaml").read_text())["spack"]["specs"][0]["matrix"][0][0]


def hpctoolkit_prefix() -> Path:
    """Install prefix of the environment's HPCToolkit, or the test fails saying how to build it."""
    spec = environment_spec()
    proc = run(f"spack find --format '{{prefix}}' {shlex.quote(spec)}", check=False)
    prefixes = proc.stdout.split()
    if proc.returncode != 0 or not prefixes:
        pytest.fail(
            f"HPCToolkit ({spec}) is not installed: build it with `. ./setup-env.sh && "
            "spack -e environments/hpctoolkit install` (Dyninst, Intel XED, libmonitor and "
            "HPCToolkit from source; Spack's install tree is shared, so once is enough)"
        )
    return Path(prefixes[0])


def checked(cmd, cwd, env=None, timeout=1200):
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    if proc.returncode != 0:
        pytest.fail(
            f"`{' '.join(map(str, cmd))}` exited {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}"
            f"\n--- stderr\n{proc.stderr[-3000:]}"
        )
    return proc


@pytest.fixture(scope="module")
def profiled(project, tmp_path_factory):
    """Build, run under hpcrun, make the database and read it; what each step left."""
    import os

    hpctoolkit = hpctoolkit_prefix()
    openmpi = Path(local("spack/packages.yaml")["packages"]["openmpi"]["externals"][0]["prefix"])
    env = {**os.environ, **local("ramble/env_vars.yaml")["env_vars"]["set"]}
    work = tmp_path_factory.mktemp("hpcrun")
    checked([openmpi / "bin/mpicc", "-g", "-O2", "-o", "mpi_imbalance", HERE / "mpi_imbalance.c"], work)

    measurements, database = work / "measurements", work / "database"
    program = checked(
        [
            openmpi / "bin/mpirun",
            "-n",
            str(RANKS),
            hpctoolkit / "bin/hpcrun",
            "-e",
            EVENT,
            "-o",
            measurements,
            "./mpi_imbalance",
            str(STEPS),
            str(UNIT),
        ],
        work,
        env,
    )
    checked([hpctoolkit / "bin/hpcstruct", measurements], work)
    checked([hpctoolkit / "bin/hpcprof", "-o", database, measurements], work)

    csv = work / "table.csv"
    reader = checked([sys.executable, "-m", "analysis.hpctoolkit", database, "-o", csv, "--top", "10"], ROOT)
    own = re.search(r"compute_cpu_s=(?P<compute>[\d.]+) mpi_cpu_s=(?P<mpi>[\d.]+)", program.stdout)
    assert own, f"mpi_imbalance printed no CPU times:\n{program.stdout}\n{program.stderr}"
    return {
        "measurements": measurements,
        "database": database,
        "program": program.stdout,
        "compute_s": float(own["compute"]),
        "mpi_s": float(own["mpi"]),
        "stdout": reader.stdout,
        "table": pd.read_csv(csv),
    }


def test_program_ran_under_hpcrun(profiled):
    assert f"mpi_imbalance ranks={RANKS} steps={STEPS} " in profiled["program"]
    # One profile per rank (hpcrun names each <program>-<rank>-<thread>-...hpcrun).
    ranks = {int(p.name.split("-")[1]) for p in profiled["measurements"].glob("mpi_imbalance-*.hpcrun")}
    assert ranks == set(range(RANKS))


def test_database_is_hpcprofs_sparse_format(profiled):
    names = {p.name for p in profiled["database"].iterdir()}
    assert {"meta.db", "profile.db", "cct.db"} <= names, names


def test_program_function_with_the_time_it_measured(profiled):
    table = profiled["table"].set_index("function")
    row = table.loc["compute_partial_sum"]
    assert not row["in_mpi"]
    assert row["inclusive_s"] == pytest.approx(profiled["compute_s"], rel=TOLERANCE)
    assert row["exclusive_s"] == pytest.approx(row["inclusive_s"], rel=0.05)  # it calls nothing
    assert table.loc["main", "inclusive_s"] >= profiled["compute_s"] + profiled["mpi_s"] * (1 - TOLERANCE)


def test_mpi_calls_with_the_time_they_took(profiled):
    table = profiled["table"]
    found = {}
    for call in MPI_CALLS:
        rows = table[table["function"].isin([call, "P" + call])]
        assert len(rows), f"{call} is not in the database:\n{table.head(30).to_string()}"
        assert rows["in_mpi"].all()
        found[call] = rows["inclusive_s"].sum()
    assert all(seconds > 0 for seconds in found.values()), found
    assert sum(found.values()) == pytest.approx(profiled["mpi_s"], rel=TOLERANCE)


def test_report_names_the_mpi_share(profiled):
    lines = profiled["stdout"].splitlines()
    share = re.fullmatch(r"MPI: ([\d.]+)% of ([\d.]+) s \(MPI calls and everything below them\)", lines[-2])
    assert share, lines[-2]
    table = profiled["table"]
    assert float(share[2]) == pytest.approx(table["exclusive_s"].sum(), abs=1e-5)
    # The loop's MPI time, plus what MPI_Init and MPI_Finalize spend, is the MPI share.
    assert float(share[1]) / 100 * float(share[2]) >= profiled["mpi_s"] * (1 - TOLERANCE)


def test_modifier_uses_the_environments_hpctoolkit(project, tmp_path):
    """What the Ramble modifier adds to a study's environment is what environments/hpctoolkit builds."""
    script = tmp_path / "spec.py"
    script.write_text(
        "import ramble.repository as r\n"
        "cls = r.paths[r.ObjectTypes.modifiers].get_obj_class('hpctoolkit')\n"
        "print(cls.software_specs['hpctoolkit']['pkg_spec'])\n"
    )
    assert run(f"ramble python {script}").stdout.strip().splitlines()[-1] == environment_spec()
