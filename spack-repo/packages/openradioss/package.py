from spack.package import *

# OpenRadioss publishes a release from main every day (tag latest-YYYYMMDD) and keeps only the last
# few, so a study pins the commit. This one is main on 2023-07-01, from the time of SC'23; later
# trees (2025 on) no longer carry extlib/ (h3d, hm_reader), which the builtin recipes install.
COMMIT = "6247818ad01c01aedd530c4a386bb075bcd81a5b"


class Openradioss(BundlePackage):
    """OpenRadioss: the starter (checks the model, splits it into SPMD domains) and the engine
    (runs the explicit simulation on MPI ranks x OpenMP threads), for S1 (HPCaaS-Bench T6, the
    NEON 1M-element frontal crash).

    Spack's builtin recipes openradioss-starter and openradioss-engine build the two programs
    but only know the branch main; the project's subclasses of both add the version 20230701
    (this commit), and this bundle pins both to it so a study builds the same code everywhere.
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
    # The engine's MPI build is Open MPI only (its CMake links -lmpi_mpifh); the study's
    # cray-mpich runs need the Cray compiler wrappers instead.
    depends_on("openradioss-engine+mpi", when="+mpi", type="run")
    depends_on("openradioss-engine~mpi", when="~mpi", type="run")
