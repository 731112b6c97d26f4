from spack.package import *
from spack.pkg.builtin.gromacs import Gromacs as BuiltinGromacs


class Gromacs(BuiltinGromacs):
    """GROMACS, as Spack's builtin recipe, built here from source.

    2022.5's release tarball is the one Debian ships as its orig tarball (same sha256 as the
    builtin's), so `make mirror` serves it from mirror/ on machines that cannot reach
    ftp.gromacs.org (scripts/mirror-sources.tsv); FFTW, hwloc, OpenBLAS, CMake and pkgconf come
    from Debian as externals (scripts/debian-externals.tsv). Nothing else differs from the builtin.
    """

    maintainers("hpcaas-bench")
