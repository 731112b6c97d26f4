from spack.package import *
from spack.pkg.builtin.cp2k import Cp2k as BuiltinCp2k


class Cp2k(BuiltinCp2k):
    """CP2K, as Spack's builtin recipe: the studies pin its 2023.1 release tarball (the builtin's
    URL and sha256), the release Debian 12 ships as a binary.

    On this 2-core machine CP2K stays Debian's binary (scripts/debian-externals.tsv): a source
    build needs DBCSR, libint, libxc, ELPA, ScaLAPACK, spglib and COSMA built first, hours of CPU
    here, and the tarball (github.com/cp2k/cp2k/releases) cannot be fetched offline (Debian's copy
    of it, the same file, is missing from the archive mirror this machine reaches).
    """

    maintainers("hpcaas-bench")
