from spack.package import *
from spack.pkg.builtin.hpcc import Hpcc as BuiltinHpcc


class Hpcc(BuiltinHpcc):
    """HPC Challenge, as Spack's builtin recipe, buildable against MPIs that dropped MPI-1.

    HPCC 1.5.0 still calls MPI-1 functions (MPI_Address, MPI_Type_struct) that Open MPI 4
    hides unless asked for them; Debian's Open MPI is built without MPI-1 compatibility.
    """

    maintainers("hpcaas-bench")

    def flag_handler(self, name, flags):
        if name == "cflags" and self.spec.satisfies("^openmpi"):
            flags.append("-DOMPI_OMIT_MPI1_COMPAT_DECLS=0")
        return (flags, None, None)
