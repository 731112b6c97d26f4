from spack.package import *


class PlatformMpi(BundlePackage):
    """IBM Platform MPI (formerly HP-MPI), a proprietary MPI: a site registers its install as an
    external (the HPC Advisory Council's AMBER study used Platform MPI 8.1.1). Spack v0.23.1 has
    no recipe for it; this one has no code, as Spack's builtin spectrum-mpi, so a spec can name it
    and the solver can place it in the mpi role."""

    homepage = "https://www.ibm.com/docs/en/smpi"
    maintainers("hpcaas-bench")

    has_code = False

    version("8.1.1")

    provides("mpi")
    requires("platform=linux")

    def setup_dependent_package(self, module, dependent_spec):
        # Platform MPI's compiler wrappers (bin/ of its install, HP-MPI's names).
        bin = self.prefix.bin
        self.spec.mpicc = join_path(bin, "mpicc")
        self.spec.mpicxx = join_path(bin, "mpiCC")
        self.spec.mpif77 = join_path(bin, "mpif77")
        self.spec.mpifc = join_path(bin, "mpif90")

    def setup_dependent_build_environment(self, env, dependent_spec):
        env.set("MPICC", join_path(self.prefix.bin, "mpicc"))
        env.set("MPICXX", join_path(self.prefix.bin, "mpiCC"))
        env.set("MPIF77", join_path(self.prefix.bin, "mpif77"))
        env.set("MPIF90", join_path(self.prefix.bin, "mpif90"))
