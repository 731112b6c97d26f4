from spack.package import *


class HpcgForArm(MakefilePackage):
    """Arm's optimised HPCG (github.com/ARM-software/HPCG_for_Arm): HPCG 3.0 with shared-memory
    parallel kernels (a task dependency graph on the finest grid, multi-block colouring on the
    coarser ones), matrices and vectors reordered for locality, NEON or SVE intrinsics and the Arm
    Performance Libraries' sparse SpMV, DDOT and WAXPBY. PASC'19 ran Arm's optimised HPCG on the
    Apollo 70 ("we used the optimised versions of HPCG", Section 6.1; Table 8's HPCG flags there
    are those of the repository's Make.ARM_* files); its public source starts in November 2019.

    Its result file is HPCG 3.1's format, named <host>-<N>ranks-<T>threads_HPCG-Benchmark_3.0_<date>.txt.
    """

    homepage = "https://github.com/ARM-software/HPCG_for_Arm"
    git = "https://github.com/ARM-software/HPCG_for_Arm.git"
    maintainers("hpcaas-bench")

    license("BSD-3-Clause")

    # The last commit (2020-08-19: ComputeWAXPBY's ArmPL path, taken only under OpenMP before, and
    # the sequential DWAXPBY call's missing argument); the first public one is a75a7f2 (2019-11-11).
    version("2020.08.19", commit="0eddbfdf85e0e0f8384150b6657e874356025319")

    variant("openmp", default=True, description="OpenMP threads in the kernels")
    variant("armpl", default=False, description="ArmPL's sparse SpMV (ArmPL 19.0+), DDOT and WAXPBY")
    variant("simd", default="none", values=("none", "neon", "sve"), multi=False, description="Kernel intrinsics")
    # The intrinsics and ArmPL are Arm's; without them the optimised kernels build anywhere.
    conflicts("simd=neon", when="target=x86_64:", msg="NEON intrinsics need an Arm target")
    conflicts("simd=sve", when="target=x86_64:", msg="SVE intrinsics need an Arm target")

    depends_on("cxx", type="build")
    depends_on("mpi@1.1:")
    depends_on("armpl", when="+armpl")

    ARCH = "spack"

    def options(self):
        """HPCG_OPTS of the build (the repository's setup/Make.ARM_* use contiguous arrays)."""
        spec = self.spec
        opts = ["-DHPCG_CONTIGUOUS_ARRAYS"]
        if spec.satisfies("~openmp"):
            opts.append("-DHPCG_NO_OPENMP")
        if spec.satisfies("+armpl"):
            opts += ["-DHPCG_USE_DDOT_ARMPL", "-DHPCG_USE_WAXPBY_ARMPL", "-DHPCG_USE_ARMPL_SPMV"]
        simd = spec.variants["simd"].value
        if simd != "none":
            opts.append(f"-DHPCG_USE_{simd.upper()}")
        return opts

    def edit(self, spec, prefix):
        armpl = spec["armpl"].prefix if spec.satisfies("+armpl") else None
        openmp = self.compiler.openmp_flag if spec.satisfies("+openmp") else ""
        # -O3 only: the flags a study gives (cxxflags, PASC'19 Table 8) come from Spack's wrapper.
        lines = [
            "SHELL = /bin/sh",
            "CD = cd",
            "CP = cp",
            "LN_S = ln -s -f",
            "MKDIR = mkdir -p",
            "RM = /bin/rm -f",
            "TOUCH = touch",
            "TOPdir = .",
            "SRCdir = $(TOPdir)/src",
            "INCdir = $(TOPdir)/src",
            "BINdir = $(TOPdir)/bin",
            f"ARMPLinc = {f'-I{armpl.include}' if armpl else ''}",
            f"ARMPLlib = {f'-L{armpl.lib} -larmpl_mp' if armpl else ''}",
            "HPCG_INCLUDES = -I$(INCdir) -I$(INCdir)/$(arch) $(ARMPLinc)",
            "HPCG_LIBS = $(ARMPLlib)",
            f"HPCG_OPTS = {' '.join(self.options())}",
            "HPCG_DEFS = $(HPCG_OPTS) $(HPCG_INCLUDES)",
            f"CXX = {spec['mpi'].mpicxx}",
            f"CXXFLAGS = $(HPCG_DEFS) -O3 -std=c++11 {openmp}",
            "LINKER = $(CXX)",
            "LINKFLAGS = $(CXXFLAGS)",
            "ARCHIVER = ar",
            "ARFLAGS = r",
            "RANLIB = echo",
        ]
        with open(join_path("setup", f"Make.{self.ARCH}"), "w") as f:
            f.write("\n".join(lines) + "\n")

    @property
    def build_targets(self):
        return [f"arch={self.ARCH}"]

    def install(self, spec, prefix):
        install_tree("bin", prefix.bin)
