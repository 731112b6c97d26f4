from spack.package import *
from spack.pkg.builtin.intel_mpi_benchmarks import IntelMpiBenchmarks as BuiltinImb


class IntelMpiBenchmarks(BuiltinImb):
    """Intel MPI Benchmarks, as Spack's builtin recipe, fetched from the upstream git repository.

    The builtin downloads GitHub's generated tag archives (sha256 of tarballs nothing here
    serves); the same tags are pinned here by commit, so the source is the tag's tree online and
    offline (through a git mirror). 2019.1 is the version S4 and S5 use (their papers give none:
    the release of their time); 2021.7 is the builtin's newest; 2021.11 the newest upstream tag.
    The builtin's 2019 patches (add_const, reorder_benchmark_macros) apply to the tag's tree.
    """

    git = "https://github.com/intel/mpi-benchmarks.git"

    maintainers("hpcaas-bench")

    version("2021.11", commit="1a7cada09754be3ccf60c2698305a4c020b52e28")  # tag IMB-v2021.11
    version("2021.7", commit="01bab9fee9f73620e754b23357a91f87131d21ce")  # tag IMB-v2021.7
    version("2019.1", commit="eff02185a10a64ec2e8a01abc048633b79fddb8b")  # tag v2019.1
