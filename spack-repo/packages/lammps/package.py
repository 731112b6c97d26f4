from spack.package import *
from spack.pkg.builtin.lammps import Lammps as BuiltinLammps


class Lammps(BuiltinLammps):
    """LAMMPS, as Spack's builtin recipe, plus the version Debian 12 packages, built from source.

    20220106 is LAMMPS stable 29 Sep 2021 update 2 (git 7586adbb6a) as Debian 12 packages it:
    Debian's orig tarball, which drops bench/log.* and bundled libraries LAMMPS also finds
    installed (lib/kokkos, lib/voronoi, ...), so its sha256 is Debian's, not GitHub's. Spack
    fetches it from Debian's archive (or mirror/, filled by `make mirror`), so the version builds
    from a pinned source anywhere, this offline machine included (GitHub's releases, the
    builtin's versions, are downloads). The builtin's default packages (KSPACE, MANYBODY,
    MOLECULE, RIGID, OpenMP) build in 252 s on the 2-core development machine.
    """

    maintainers("hpcaas-bench")

    version(
        "20220106",
        sha256="65146c615ad24d8b8bc64f4e05e86226a7f1fdb45c0b5ea9416562b9f3863082",
        url="https://deb.debian.org/debian/pool/main/l/lammps/lammps_20220106.git7586adbb6a+ds1.orig.tar.xz",
    )
