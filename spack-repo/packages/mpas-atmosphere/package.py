import glob
import os

from spack.package import *
from spack.pkg.builtin.mpas_model import MpasModel

# S1 T8's Fortran flags per compiler family, besides -O3/-Ofast (STUDIES.md). The real-8
# promotion flags are kept apart: they apply to precision=double only.
STUDY_FFLAGS = {
    "gcc": [
        "-m64",
        "-ffree-line-length-none",
        "-fconvert=big-endian",
        "-ffree-form",
        # gfortran >= 10 rejects MPAS' argument mismatches and BOZ constants without these.
        "-fallow-argument-mismatch",
        "-fallow-invalid-boz",
    ],
    "intel": ["-convert big_endian", "-FR"],
    "oneapi": ["-convert big_endian", "-FR"],
    "cce": ["-f free", "-h byteswapio"],
}
PROMOTION_FFLAGS = {
    "gcc": ["-fdefault-real-8", "-fdefault-double-8"],
    "intel": ["-real-size 64"],
    "oneapi": ["-real-size 64"],
    "cce": ["-default64"],
}


class MpasAtmosphere(MpasModel):
    """MPAS-Atmosphere (the atmosphere and init_atmosphere cores of MPAS-Model), as Spack's builtin
    mpas-model recipe, plus the HPCaaS-Bench T8 axes: compiler (Spack's own %gcc, %intel, %cce)
    x optimisation level (opt=O3 or Ofast), each compiler with the study's flags.

    The WRF physics tables (MPAS-Data) are run-time inputs: the build only checks that they are
    there (physics/checkout_data_files.sh, the Makefile's lookup_tables), compiles none of them
    and installs none. The builtin fetches MPAS-Data v7.0 as a resource for that check; this
    recipe drops it and the check (no-lookup-tables.patch), so MPAS builds from its own source
    alone. A run that needs the tables gets them with its input (NCAR's benchmark tarball holds
    them); the catalog's idealized case (physics suite none) reads none.
    MPAS' own compile is ~15-30 min on 2 cores (init_atmosphere, then atmosphere, each ~400
    Fortran files).

    MPAS' Makefile writes its flags into each build target ("FFLAGS_OPT = -O3 ..." inside
    gfortran:, ifort:, ...); the builtin recipe rewrites those lines (patch_makefile), and this
    one rewrites the optimisation flags the same way. GNU at -Ofast segfaults at run time in the
    study: an experiment that must show as failed, not a build error.
    """

    maintainers("hpcaas-bench")

    # 7.3 from the upstream repository at the release's commit (the tag v7.3 points to it): `git
    # archive --prefix=MPAS-Model-7.3/ v7.3 | gzip -n` is byte for byte the builtin's tarball (its
    # sha256 a6a95709...). Only src/ and the top-level files are checked out: the repository's
    # history is 1.6 GB; the build reads src/ and the Makefile.
    git = "https://github.com/MPAS-Dev/MPAS-Model.git"
    version("7.3", commit="09bb84c6b239c112103758bd31b707f0f9e56c0d")
    git_sparse_paths = ("src",)

    patch("no-lookup-tables.patch", when="@7.3")

    variant(
        "opt",
        default="O3",
        values=("O3", "Ofast"),
        multi=False,
        description="Optimisation level of the Fortran, C and C++ code (S1 T8)",
    )

    # Cray's compilers have no target of their own in MPAS' Makefile to guess from the compiler
    # name. "cray-nersc" is the Cray one (ftn/cc/CC, -default64 promotion, -O3 -f free), whose
    # flags the paper used with -h byteswapio (S1 Section 7); "ftn" calls the same wrappers with
    # PGI's flags (-r8, -Mvect, -mp).
    requires("make_target=cray-nersc", when="%cce", msg="MPAS builds with Cray compilers through its cray-nersc target")

    def study_fflags(self):
        family = self.spec.compiler.name
        flags = list(STUDY_FFLAGS.get(family, []))
        if self.spec.satisfies("precision=double"):
            flags += PROMOTION_FFLAGS.get(family, [])
        return flags

    def build(self, spec, prefix):
        # The builtin's build without its first step, the copy of the MPAS-Data resource.
        make(*self.target("init_atmosphere", "all"), parallel=True)
        mkdir("bin")
        for name in ("init_atmosphere_model", "namelist.init_atmosphere", "streams.init_atmosphere"):
            copy(name, "bin")
        make(*self.target("init_atmosphere", "clean"))
        make(*self.target("atmosphere", "all"), parallel=True)
        copy("atmosphere_model", "bin")

    def install(self, spec, prefix):
        """Also the atmosphere core's default namelist and streams (the builtin installs the init
        core's only), so that a run can start from them (the catalog's idealized case does)."""
        for name in ["namelist.atmosphere", "streams.atmosphere"] + glob.glob("stream_list.atmosphere.*"):
            if os.path.isfile(name):
                copy(name, "bin")
        super().install(spec, prefix)

    def target(self, model, action):
        targets = super().target(model, action)
        opt = "-" + self.spec.variants["opt"].value
        flags = [
            "FFLAGS_OPT={}".format(" ".join([opt] + self.study_fflags())),
            f"CFLAGS_OPT={opt}",
            f"CXXFLAGS_OPT={opt}",
            f"LDFLAGS_OPT={opt}",
        ]
        # The last element is the Makefile target the builtin chose (gfortran, ifort, ftn, ...).
        self.patch_makefile(targets[-1], flags)
        return targets[:-1] + flags + targets[-1:]


# The builtin's MPAS-Data resources (physics tables for the build's check, above): not fetched.
MpasAtmosphere.resources = {}
