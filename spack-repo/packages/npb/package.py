from spack.package import *
from spack.pkg.builtin.npb import Npb as BuiltinNpb


class Npb(BuiltinNpb):
    """NAS Parallel Benchmarks, as Spack's builtin recipe, buildable with GCC 10 and newer.

    NPB's common/randi8.f (the RAND=randi8 the builtin selects) writes hexadecimal constants
    as X'...', which gfortran 10+ rejects ("Hexadecimal constant at (1) uses nonstandard X
    instead of Z") unless told -fallow-invalid-boz; the builtin only adds
    -fallow-argument-mismatch. Seen building NPB 3.3.1 and 3.4 MPI with Debian's gfortran 12.2.
    """

    maintainers("hpcaas-bench")

    def edit(self, spec, prefix):
        super().edit(spec, prefix)
        if spec.satisfies("%gcc@10:"):
            with working_dir(self.build_directory):
                filter_file(r"^FFLAGS = (.*)$", r"FFLAGS = \1 -fallow-invalid-boz", "config/make.def")
