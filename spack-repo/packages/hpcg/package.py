from spack.package import *
from spack.pkg.builtin.hpcg import Hpcg as BuiltinHpcg


class Hpcg(BuiltinHpcg):
    """HPCG, as Spack's builtin recipe, with 3.1 and 3.0 (the version S5, PASC'19, measured)
    pinned to their release tags' commits in the builtin's git repository.

    The builtin fetches 3.1 from hpcg-benchmark.org by sha256; the tag HPCG-release-3-1-0 is
    the same release, reachable through a git mirror. The builtin's GCC 9+ OpenMP fix (patch
    e9e0b7e, fetched from GitHub by sha256; scripts/mirror.sh puts it in the project's mirror)
    applies to both. AVX2 vs AVX-512 builds are Spack targets (target=haswell vs skylake_avx512).
    """

    maintainers("hpcaas-bench")

    version("3.1", commit="e3fe052b572b5e512a826769834582fc1939389c")  # HPCG-release-3-1-0
    version("3.0", commit="2cc01515231f00069db4fff2a8b7f5ba364e6f09")  # HPCG-release-3-0-0
