"""The mpas-atmosphere recipe's patch on MPAS-Model 7.3 as the recipe pins it (by commit, src/
only), read back from the stage: the physics build no longer runs the lookup-table check, and
the stage holds no MPAS-Data resource (the builtin's, which the recipe drops); the Makefile target
the recipe builds %cce with is the Cray one."""

import json

import pytest
from testkit import ROOT, catalog_spec, staged_source


@pytest.fixture(scope="module")
def stage(project, tmp_path_factory):
    return staged_source(catalog_spec("mpas-atmosphere"), tmp_path_factory.mktemp("stage"))


def test_no_lookup_tables_patch_applied(stage):
    makefile = (stage / "src/core_atmosphere/physics/Makefile").read_text()
    assert "\nall: core_physics_init core_physics_wrf core_physics\n" in makefile
    assert "all: lookup_tables" not in makefile
    assert (stage / "src/core_atmosphere/physics/checkout_data_files.sh").is_file()  # upstream's, unused


def test_no_mpas_data_resource_in_the_stage(stage):
    assert not (stage / "MPAS-Data").exists()
    assert not list(stage.parent.parent.glob("resource-MPAS-Data-*"))


def test_the_cray_target_has_the_papers_cray_flags(stage):
    """S1 Section 7 built MPAS with cce as '-default64 -f free -h byteswapio' with -O3 or -Ofast,
    "using the makefile provided with the application": its cray-nersc target gives -default64
    and -f free (the recipe adds -h byteswapio and the -O level), which %cce builds use."""
    makefile = (stage / "Makefile").read_text()
    block = makefile.split("\ncray-nersc:\n", 1)[1].split("\n\n", 1)[0]
    assert '"FFLAGS_PROMOTION = -default64"' in block
    assert '"FFLAGS_OPT = -O3 -f free"' in block
    assert '"FC_PARALLEL = ftn"' in block


def test_every_cce_build_of_a_committed_lock_uses_the_cray_target():
    locks = sorted((ROOT / "environments").glob("*/*/spack.lock"))
    cce = [
        spec["parameters"]["make_target"]
        for lock in locks
        for spec in json.loads(lock.read_text())["concrete_specs"].values()
        if spec["name"] == "mpas-atmosphere" and spec["compiler"]["name"] == "cce"
    ]
    assert cce and set(cce) == {"cray-nersc"}
