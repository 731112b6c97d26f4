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

#: NAMD 3.0's source files with a "#pragma ivdep" line that a build of the targets the studies
#: use compiles (ComputeNonbondedBase2KNL.h and AVXTiles.C need NAMD_KNL / +avxtiles).
IVDEP_FILES = [
    "src/ComputeNonbondedBase2.h",
    "src/ComputeNonbondedInl.h",
    "src/ComputePme.C",
    "src/Patch.C",
]
#: A whole "#pragma ivdep" line (any indentation); "#pragma GCC ivdep" and the like are kept.
#: [ \t], not \s: filter_file matches each line with its newline, which \s would take.
IVDEP_PRAGMA = r"^([ \t]*)#[ \t]*pragma[ \t]+ivdep[ \t]*$"
IVDEP_REMOVED = r"\1// #pragma ivdep removed (hpcaas-bench ~ivdep)"


class Namd(BuiltinNamd):
    """NAMD, as Spack's builtin recipe, plus the HPCaaS-Bench T4 axis "with / without ivdep".

    NAMD 3.0's own source asserts "#pragma ivdep" on a few loops (IVDEP_FILES: the nonbonded
    pair loop of src/ComputeNonbondedBase2.h, the pairlist loop of ComputeNonbondedInl.h, one
    loop each in ComputePme.C and Patch.C; the KNL and AVX-tiles copies are not built here),
    guarded only against PowerPC and icx (__INTEL_LLVM_COMPILER). Which compilers read that
    spelling: icc does; GCC documents only "#pragma GCC ivdep" and Clang only "#pragma clang
    loop"; Cray documents "#pragma [_CRI] ivdep" for its C/C++ (CPE man page ivdep(7)), and
    whether the Clang-based CCE 15 still honours it is not verified here. So the two builds
    are made to differ whatever the compiler reads:
    - +ivdep keeps NAMD's pragmas and adds the same assertion on the pair loop in the GCC
      and Clang spellings (ivdep-3.0.patch), which every compiler the studies use reads;
    - ~ivdep removes NAMD's own "#pragma ivdep" lines (patch()), so no loop asserts it.

    NAMD is licensed: Spack cannot download it. See download_instr for the file to provide.
    """

    maintainers("hpcaas-bench")

    variant(
        "ivdep",
        default=False,
        when="@3.0",
        description="Keep NAMD's #pragma ivdep and assert it on the pair loop for GCC/Clang too "
        "(~ivdep: remove NAMD's #pragma ivdep lines)",
    )
    # Written against NAMD_3.0_Source.tar.gz; other versions differ around that loop.
    patch("ivdep-3.0.patch", when="@3.0 +ivdep")

    @when("@3.0 ~ivdep")
    def patch(self):
        """Without ivdep: no loop keeps NAMD's own "#pragma ivdep" (see the class docstring)."""
        filter_file(IVDEP_PRAGMA, IVDEP_REMOVED, *IVDEP_FILES)

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
