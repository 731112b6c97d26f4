"""The nektar recipe's patch on the real source: Spack checks out the pinned commit of Nektar++
5.3.0 (the sparse paths of the recipe: no docs/) and applies docs-optional.patch, so CMake adds
docs/ only when it is there. Without MPI the spec needs no gsmpi download, so it stages offline."""

from testkit import staged_source

SPEC = "nektar@5.3.0 ~mpi ~hdf5"


def test_docs_optional_patch_is_applied_to_the_pinned_source(project, tmp_path):
    source = staged_source(SPEC, tmp_path, timeout=1800)
    cmake = (source / "CMakeLists.txt").read_text().splitlines()
    assert "IF (EXISTS ${CMAKE_SOURCE_DIR}/docs/CMakeLists.txt)" in cmake
    assert "ADD_SUBDIRECTORY(docs)" not in cmake  # only the indented, conditional one
    assert "    ADD_SUBDIRECTORY(docs)" in cmake
    # The sparse checkout: the solver the benchmark runs, not the guides.
    assert (source / "solvers/IncNavierStokesSolver/CMakeLists.txt").is_file()
    assert not (source / "docs").exists()
