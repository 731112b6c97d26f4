from spack.package import *
from spack.pkg.builtin.parallelio import Parallelio as BuiltinParallelio


class Parallelio(BuiltinParallelio):
    """ParallelIO (MPAS' I/O layer), as Spack's builtin recipe, with 2.6.2 from the upstream
    repository at the tag's commit: `git archive --prefix=ParallelIO-pio2_6_2/ pio2_6_2 | gzip -n`
    is byte for byte the builtin's GitHub archive (sha256 c318894f...), which is a download; the
    builtin's resources (genf90, CMake_Fortran_utils) are git tags already."""

    maintainers("hpcaas-bench")

    version("2.6.2", commit="f52ade075619b32fa141993b5665b0fe099befc2")

    def cmake_args(self):
        """The builtin's, plus each netCDF library by its file: PIO's LibFind.cmake looks for a
        library in <prefix>/lib only (NO_DEFAULT_PATH), and a distribution's netCDF (Debian's
        external, prefix /usr) keeps it in a multiarch folder (lib/x86_64-linux-gnu)."""
        args = super().cmake_args()
        args.append(self.define("NetCDF_C_LIBRARY", self.spec["netcdf-c"].libs.libraries[0]))
        if self.spec.satisfies("+fortran"):
            args.append(self.define("NetCDF_Fortran_LIBRARY", self.spec["netcdf-fortran"].libs.libraries[0]))
        return args
