"""The mpas-atmosphere recipe's patch on MPAS-Model 7.3 as the recipe pins it (by commit, src/
only), read back from the stage: the physics build no longer runs the lookup-table check, and
the stage holds no MPAS-Data resource (the builtin's, which the recipe drops)."""

import pytest
from testkit import run


@pytest.fixture(scope="module")
def stage(project, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stage")
    run(f"spack -c 'config:build_stage:[{tmp}]' patch 'mpas-atmosphere@7.3 ^openmpi'", timeout=900)
    (root,) = tmp.glob("**/spack-stage-mpas-atmosphere-7.3-*/spack-src")
    return root


def test_no_lookup_tables_patch_applied(stage):
    makefile = (stage / "src/core_atmosphere/physics/Makefile").read_text()
    assert "\nall: core_physics_init core_physics_wrf core_physics\n" in makefile
    assert "all: lookup_tables" not in makefile
    assert (stage / "src/core_atmosphere/physics/checkout_data_files.sh").is_file()  # upstream's, unused


def test_no_mpas_data_resource_in_the_stage(stage):
    assert not (stage / "MPAS-Data").exists()
    assert not list(stage.parent.parent.glob("resource-MPAS-Data-*"))
