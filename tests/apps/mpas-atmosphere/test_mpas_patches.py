"""The mpas-atmosphere recipe's patch on MPAS-Model 7.3 as the recipe pins it (by commit, src/
only), read back from the stage: the physics build no longer runs the lookup-table check, and
the stage holds no MPAS-Data resource (the builtin's, which the recipe drops)."""

import pytest
from testkit import staged_source


@pytest.fixture(scope="module")
def stage(project, tmp_path_factory):
    return staged_source("mpas-atmosphere@7.3 ^openmpi", tmp_path_factory.mktemp("stage"))


def test_no_lookup_tables_patch_applied(stage):
    makefile = (stage / "src/core_atmosphere/physics/Makefile").read_text()
    assert "\nall: core_physics_init core_physics_wrf core_physics\n" in makefile
    assert "all: lookup_tables" not in makefile
    assert (stage / "src/core_atmosphere/physics/checkout_data_files.sh").is_file()  # upstream's, unused


def test_no_mpas_data_resource_in_the_stage(stage):
    assert not (stage / "MPAS-Data").exists()
    assert not list(stage.parent.parent.glob("resource-MPAS-Data-*"))
