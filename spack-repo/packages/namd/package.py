from spack.package import *
from spack.pkg.builtin.namd import Namd as BuiltinNamd

#: The Cray PE CPU (craype-x86-* module, `-target-cpu=`) of each archspec target the studies
#: build NAMD for with cce (SC'23 Table 4: genoa and its older rome, spr and its older broadwell).
CRAYPE_CPU = {
    "zen4": "x86-genoa",
    "zen3": "x86-milan",
    "zen2": "x86-rome",
    "sapphirerapids": "x86-spr",
    "broadwell": "broadwell",
    "haswell": "haswell",
}


class Namd(BuiltinNamd):
    """NAMD, as Spack's builtin recipe, plus the HPCaaS-Bench T4 axis "with / without ivdep".

    NAMD's nonbonded pair loop (src/ComputeNonbondedBase2.h) carries "#pragma ivdep", a
    spelling that only icc and Cray's classic compilers read; GCC and the Clang family (aocc,
    icpx, Cray CCE) ignore it. +ivdep makes the same no-dependence assertion in their own
    spelling, so "with" and "without" differ for every compiler the studies use.

    NAMD is licensed: Spack cannot download it. See download_instr for the file to provide.
    """

    maintainers("hpcaas-bench")

    variant(
        "ivdep",
        default=False,
        when="@3.0",
        description="Assert no loop-carried dependence in the nonbonded pair loop for GCC/Clang",
    )
    # Written against NAMD_3.0_Source.tar.gz; other versions differ around that loop.
    patch("ivdep-3.0.patch", when="@3.0 +ivdep")

    def _edit_arch_generic(self, spec, prefix):
        """The builtin writes no optimisation flags for cce (its table has no cce entry), and cce
        gets no -march from Spack: the build must still differ per target (SC'23 Table 4), as the
        craype target module makes it differ on the site."""
        super()._edit_arch_generic(spec, prefix)
        if spec.satisfies("%cce"):
            cpu = CRAYPE_CPU.get(str(spec.target))
            flags = "-O3" + (f" -target-cpu={cpu}" if cpu else "")
            arch = join_path("arch", f"{self.build_directory}.arch")
            filter_file(r"^(CXXOPTS|COPTS) = $", rf"\1 = {flags}", arch)

    @property
    def download_instr(self):
        version = self.spec.version
        sha256 = self.versions.get(version, {}).get("sha256", "the one `spack info namd` lists")
        return (
            f"NAMD {version} is licensed and cannot be downloaded by Spack. Register and download "
            f"NAMD_{version}_Source.tar.gz from https://www.ks.uiuc.edu/Development/Download/"
            f"download.cgi?PackageName=NAMD (sha256 {sha256}), then copy it into the project's "
            f"Spack mirror as mirror/namd/namd-{version}.tar.gz, or run `spack install` from the "
            f"directory that holds NAMD_{version}_Source.tar.gz."
        )
