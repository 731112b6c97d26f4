from spack.package import *
from spack.pkg.builtin.hpcg import Hpcg as BuiltinHpcg


class Hpcg(BuiltinHpcg):
    """HPCG, as Spack's builtin recipe, plus HPCG 3.0: the version S5 (PASC'19) measured.

    3.0 is pinned to the release tag's commit (HPCG-release-3-0-0) in the builtin's git
    repository. The builtin's GCC 9+ OpenMP fix (patch e9e0b7e) applies to 3.0 unchanged.
    AVX2 vs AVX-512 builds are Spack targets (e.g. target=haswell vs target=skylake_avx512).
    """

    maintainers("hpcaas-bench")

    version("3.0", commit="2cc01515231f00069db4fff2a8b7f5ba364e6f09")
