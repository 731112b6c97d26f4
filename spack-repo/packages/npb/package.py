from spack.package import *
from spack.pkg.builtin.npb import Npb as BuiltinNpb

# NASA publishes NPB as tarballs only (nas.nasa.gov) and Debian does not package it, so no pristine
# tarball can be served from mirror/. mbdevpl/nas-parallel-benchmarks imports each release's
# tarball tree, one commit per release; its later "remove all EOL spaces" commits rewrite the
# sources, so each version is pinned to the commit that still holds its release verbatim:
# b4ffc47 (3.3.1 imported in b066d24, README renamed) and 2e2d47e (3.4 imported in 10e63c7,
# README renamed). The tree's top level is the tarball's (NPB3.3-MPI/, NPB3.4-MPI/, ...), which
# the builtin's build_directory expects.
NPB_MIRROR = "https://github.com/mbdevpl/nas-parallel-benchmarks.git"


class Npb(BuiltinNpb):
    """NAS Parallel Benchmarks, as Spack's builtin recipe, buildable with GCC 10 and newer.

    Versions: 3.3.1 (S4's) and 3.4 (S2's "NPB 3.4", released May 2018) from a git mirror of the
    release tarballs (`npb@=3.4`: npb@3.4 alone also means 3.4.1); 3.4.1 keeps the builtin's tarball
    sha256 (no mirror of it was found): it concretizes anywhere and fetches online. Offline, Spack
    stops with "FetchError: All fetchers failed", naming mirror/_source-cache/archive/f3/f3a43467...
    .tar.gz and https://www.nas.nasa.gov/assets/npb/NPB3.4.1.tar.gz: NPB3.4.1.tar.gz placed at that
    mirror/ path fixes it.

    NPB's common/randi8.f (the RAND=randi8 the builtin selects) writes hexadecimal constants
    as X'...', which gfortran 10+ rejects ("Hexadecimal constant at (1) uses nonstandard X
    instead of Z") unless told -fallow-invalid-boz; the builtin only adds
    -fallow-argument-mismatch.
    """

    maintainers("hpcaas-bench")

    version("3.4", commit="2e2d47e079d7f4fd1440fb061fa8084aade95a65", git=NPB_MIRROR)
    version("3.3.1", commit="b4ffc4757eb757e4bff9874706a1aaf9a3d526c4", git=NPB_MIRROR)

    def edit(self, spec, prefix):
        super().edit(spec, prefix)
        if spec.satisfies("%gcc@10:"):
            with working_dir(self.build_directory):
                filter_file(r"^FFLAGS = (.*)$", r"FFLAGS = \1 -fallow-invalid-boz", "config/make.def")
