from spack.package import *
from spack.pkg.builtin.gromacs import CMakeBuilder as BuiltinCMakeBuilder
from spack.pkg.builtin.gromacs import Gromacs as BuiltinGromacs


class Gromacs(BuiltinGromacs):
    """GROMACS, as Spack's builtin recipe, built here from source.

    2022.5's release tarball is the one Debian ships as its orig tarball (same sha256 as the
    builtin's), so `make mirror` serves it from mirror/ on machines that cannot reach
    ftp.gromacs.org (scripts/mirror-sources.tsv); FFTW, hwloc, OpenBLAS, CMake and pkgconf come
    from Debian as externals (scripts/debian-externals.tsv). One variant more than the builtin:
    simd, GROMACS' SIMD kernels chosen by a study rather than by the target.
    """

    maintainers("hpcaas-bench")

    # The builtin picks GROMACS' SIMD kernels from the target alone; a paper's build can ask for
    # others (PASC'19 Table 8 builds the Dell EMC Skylake nodes with -xCORE-AVX512, while Spack
    # knows that target for Intel 17.4 only as haswell, whose kernels are AVX2_256).
    variant(
        "simd",
        default="auto",
        values=(
            "auto",
            "None",
            "SSE2",
            "SSE4.1",
            "AVX_128_FMA",
            "AVX_256",
            "AVX2_128",
            "AVX2_256",
            "AVX_512",
            "AVX_512_KNL",
            "ARM_NEON_ASIMD",
            "ARM_SVE",
            "IBM_VSX",
        ),
        description="GROMACS' SIMD kernels (GMX_SIMD); auto: the builtin's choice from the target",
    )


class CMakeBuilder(BuiltinCMakeBuilder):
    def cmake_args(self):
        args = super().cmake_args()
        # A spec installed before the variant existed has none: the builtin's choice.
        simd = self.spec.variants["simd"].value if "simd" in self.spec.variants else "auto"
        if simd == "auto":
            return args
        return [a for a in args if not a.startswith("-DGMX_SIMD")] + [self.define("GMX_SIMD", simd)]
