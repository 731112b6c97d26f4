from spack.package import *


class Armpl(BundlePackage):
    """Arm Performance Libraries as a site installed them with the Arm Compiler for HPC (19.x:
    armpl-<version>_<uarch>_<os>_arm-hpc-compiler_<version>_aarch64-linux), a site's external:
    PASC'19 Table 8 lists "ARM Performance Libraries (v19.0.0)" with Arm Clang 19.0.0 on the Apollo
    70, for HPCG and Nektar++. Spack v0.23.1's armpl-gcc (the GCC builds) and acfl start at 22.0;
    this recipe has no code, as spack-repo's platform-mpi, so a spec can name it."""

    homepage = "https://developer.arm.com/Tools%20and%20Software/Arm%20Performance%20Libraries"
    maintainers("hpcaas-bench")

    has_code = False

    version("19.0.0")

    requires("target=aarch64:", msg="Arm Performance Libraries are for Arm (aarch64) only")

    @property
    def libs(self):
        return find_libraries("libarmpl_mp", root=self.prefix, shared=True, recursive=True)
