"""The builtin intel-mpi-benchmarks patches that Spack applies to 2019.1 (the studies' version),
applied to the upstream tag's tree as our recipe pins it (by commit), read back from the stage."""

import pytest
from testkit import catalog_spec, staged_source


@pytest.fixture(scope="module")
def src(project, tmp_path_factory):
    return staged_source(catalog_spec("intel-mpi-benchmarks"), tmp_path_factory.mktemp("stage"))


def test_add_const_patch_applied(src):
    # intel/mpi-benchmarks PR 19 (add_const.patch, @2019).
    text = (src / "src_cpp/args_parser.h").read_text()
    assert "std::map<const std::string, std::vector<smart_ptr<option> > > expected_args;" in text


@pytest.mark.parametrize("suite", ["MPI1", "EXT", "IO"])
def test_reorder_benchmark_macros_patch_applied(src, suite):
    # intel/mpi-benchmarks PR 20 (reorder_benchmark_macros.patch, @2019.1:2019.6): the descriptor
    # is defined before the template is instantiated.
    lines = (src / f"src_cpp/{suite}/{suite}_benchmark.cpp").read_text().splitlines()
    start = lines.index("#define BENCHMARK(BMRK_FN, BMRK_NAME) \\")
    assert lines[start + 1].startswith("template<> smart_ptr<Bmark_descr> OriginalBenchmark<BenchmarkSuite<BS_")
    assert lines[start + 3].startswith("template class OriginalBenchmark<BenchmarkSuite<BS_")
