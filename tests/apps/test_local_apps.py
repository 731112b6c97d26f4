"""The local-apps study for real: five applications (HPCC built by Spack; GROMACS, LAMMPS, CP2K,
OpenFOAM from Debian) run by Ramble at 1 and 2 ranks on this machine, FOMs in the tidy CSV."""

import pandas as pd
import pytest

from testkit import ROOT, run

# application -> {FOM name: unit} every SUCCESS experiment of it must report, at each rank count.
EXPECTED = {
    "hpcc": {"HPL_Tflops": "Tflops", "StarDGEMM_Gflops": "Gflops", "StarSTREAM_Triad": "GB/s"},
    "gromacs": {"Nanosecs per day": "ns/day", "Wall Time": "s", "Core Time": "s"},
    "lammps": {"Tau per day": "tau/day", "Loop time": "s", "Atoms": ""},
    "cp2k": {"CP2K total time": "s", "CP2K total time average": "s", "MD steps": ""},
    "openfoam": {"Number of cells": "", "snappyHexMesh Time": "s", "Execution time": "s"},
}
RANKS = (1, 2)


@pytest.fixture(scope="module")
def results(project):
    run("scripts/run-study.sh local-apps local", timeout=1800)
    return pd.read_csv(ROOT / "results/local-apps/results.csv", dtype={"project_commit": str})


def test_every_experiment_successful(results):
    assert set(results["status"]) == {"SUCCESS"}, results.loc[results["status"] != "SUCCESS",
                                                               ["experiment", "status_reason"]]
    assert set(results["application"]) == set(EXPECTED)
    assert set(results["system"]) == {"local"} and set(results["mpi"]) == {"openmpi"}


@pytest.mark.parametrize("app", sorted(EXPECTED))
@pytest.mark.parametrize("ranks", RANKS)
def test_foms_per_app_and_ranks(results, app, ranks):
    rows = results[(results["application"] == app) & (results["ranks"] == ranks)
                   & (results["status"] == "SUCCESS")]
    assert rows["experiment"].nunique() >= 1, f"no SUCCESS experiment of {app} at {ranks} rank(s)"
    for metric, unit in EXPECTED[app].items():
        got = rows[rows["metric"] == metric]
        assert len(got) >= 1, (app, ranks, metric, sorted(set(rows["metric"])))
        assert set(got["unit"].fillna("")) == {unit}, (app, ranks, metric)
        assert (got["value"] > 0).all(), got[["experiment", "metric", "value"]]
