import os

from spack.package import *

# OpenRadioss publishes a release from main every day (tag latest-YYYYMMDD) and keeps only the last
# few, so a study pins the commit. This one is main on 2023-07-01, from the time of SC'23; later
# trees (2025 on) no longer carry extlib/ (h3d, hm_reader), which the builtin recipes install.
COMMIT = "6247818ad01c01aedd530c4a386bb075bcd81a5b"
# What the starter and engine builds read: their sources, the shared sources, the reader's message
# and configuration files, the build scripts and extlib/ (prebuilt hm_reader, h3d, METIS, LAPACK).
# Not qa-tests/ (hundreds of reference results, some of them large).
SPARSE_PATHS = ("starter", "engine", "common_source", "hm_cfg_files", "Compiling_tools", "extlib")
LFS_POINTER = b"version https://git-lfs.github.com/spec/v1"


def check_extlib(source_path):
    """extlib/ is Git LFS content (.gitattributes: extlib/**/* filter=lfs): without git-lfs, or
    without the LFS objects (a mirror of the git objects only), the clone holds 130-byte pointer
    files where the libraries should be, and the link fails much later. Stop before building."""
    extlib = join_path(source_path, "extlib")
    for root, _, files in os.walk(extlib):
        for name in sorted(files):
            path = join_path(root, name)
            with open(path, "rb") as f:
                if f.read(len(LFS_POINTER)) == LFS_POINTER:
                    raise InstallError(
                        f"{path} is a Git LFS pointer, not the file",
                        long_msg="OpenRadioss keeps extlib/ (hm_reader, h3d, METIS, LAPACK builds) in "
                        "Git LFS: install git-lfs (apt-get install git-lfs; git lfs install) "
                        "where Spack clones https://github.com/OpenRadioss/OpenRadioss.git, "
                        "and use a source that serves its LFS objects.",
                    )


class Openradioss(BundlePackage):
    """OpenRadioss: the starter (checks the model, splits it into SPMD domains) and the engine
    (runs the explicit simulation on MPI ranks x OpenMP threads), for S1 (HPCaaS-Bench T6, the
    NEON 1M-element frontal crash).

    Spack's builtin recipes openradioss-starter and openradioss-engine build the two programs
    but only know the branch main; the project's subclasses of both add the version 20230701
    (this commit), and this bundle pins both to it so a study builds the same code everywhere.

    Build time, measured on the 2-core development machine (shared, load average ~15):
    openradioss-starter compiled 1,861 of ~2,040 sources (91%) in 34 min before it was stopped,
    so ~40 min; the engine has ~3,330 sources, ~65 min: about 1 h 45 min for both. Neither links
    there anyway: extlib/ is Git LFS content that a mirror of the git objects does not carry
    (check_extlib stops the build before compiling, naming the file and the fix).
    """

    homepage = "https://www.openradioss.org/"
    maintainers("hpcaas-bench")

    license("AGPL-3.0-only")

    version("20230701")

    variant("mpi", default=True, description="Engine on MPI ranks (else OpenMP threads only)")
    variant("sp", default=False, description="Single-precision starter and engine")

    # type run: the programs are used, not linked, and their run environment (RAD_CFG_PATH, the
    # h3d and hm_reader libraries) must come with this package.
    for _part in ("starter", "engine"):
        depends_on(f"openradioss-{_part}@20230701", when="@20230701", type="run")
        depends_on(f"openradioss-{_part}+sp", when="+sp", type="run")
        depends_on(f"openradioss-{_part}~sp", when="~sp", type="run")
    # The engine links the MPI of the spec (spack-repo's openradioss-engine: Open MPI or an MPI
    # of the MPICH ABI such as cray-mpich); the bundle runs it with that MPI.
    depends_on("openradioss-engine+mpi", when="+mpi", type="run")
    depends_on("mpi", when="+mpi", type="run")
    depends_on("openradioss-engine~mpi", when="~mpi", type="run")
