import glob

from spack.package import *
from spack.pkg.builtin.openradioss_engine import OpenradiossEngine as BuiltinOpenradiossEngine
from spack.pkg.hpcaas.openradioss import COMMIT, SPARSE_PATHS, check_extlib

# MPIs that name their libraries as MPICH does: libmpifort (Fortran bindings) and libmpi.
MPICH_ABI = ("mpich", "cray-mpich", "intel-mpi", "intel-oneapi-mpi", "mvapich", "mvapich2")


class OpenradiossEngine(BuiltinOpenradiossEngine):
    """OpenRadioss engine, as Spack's builtin recipe, plus a version pinned by commit (the
    builtin knows only the branch main, and Spack's solver accepts git versions from user specs
    only, not from a dependent's depends_on), and built against any MPI: the builtin depends on
    Open MPI itself, while SC'23 Table 6 runs the engine with cray-mpich too. OpenRadioss' CMake
    has one MPI mode (ompi) that links Open MPI's libraries by name (-lmpi -lmpi_mpifh); for an
    MPI of the MPICH ABI they become its names (-lmpifort -lmpi)."""

    maintainers("hpcaas-bench")

    version("20230701", commit=COMMIT)
    git_sparse_paths = SPARSE_PATHS

    depends_on("mpi", when="+mpi")

    @run_before("cmake")
    def extlib_is_not_lfs_pointers(self):
        check_extlib(self.stage.source_path)

    @run_before("cmake")
    def link_the_mpi_of_the_spec(self):
        if self.spec.satisfies("~mpi") or self.spec["mpi"].name == "openmpi":
            return
        mpi = self.spec["mpi"].name
        if mpi not in MPICH_ABI:
            raise InstallError(
                f"OpenRadioss' engine links MPI libraries by name: Open MPI's or the MPICH ABI's, not {mpi}'s",
                long_msg="Add its Fortran and C MPI libraries to spack-repo/packages/openradioss-engine.",
            )
        for cmake in glob.glob(join_path(self.stage.source_path, "engine", "CMake_Compilers", "cmake_*.txt")):
            filter_file("-lmpi -lmpi_mpifh", "-lmpifort -lmpi", cmake, string=True)


# The builtin's depends_on("openmpi", when="+mpi"), which the class inherits: the virtual mpi above
# replaces it.
for _deps in OpenradiossEngine.dependencies.values():
    _deps.pop("openmpi", None)
