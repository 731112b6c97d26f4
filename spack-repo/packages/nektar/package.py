from spack.package import *
from spack.pkg.builtin.nektar import Nektar as BuiltinNektar


class Nektar(BuiltinNektar):
    """Nektar++, as Spack's builtin recipe (versions pinned by commit), built for S5 (PASC'19:
    the incompressible Navier-Stokes solver, GNU vs Arm compilers via Spack's %gcc / %arm).

    The builtin builds no solver by default and the Python interface by default (Boost.Python
    and NumPy); the benchmark needs IncNavierStokesSolver and no Python.
    """

    maintainers("hpcaas-bench")

    variant("ins_solver", default=True,
            description="Builds an executable associated with the Incompressible Navier Stokes solver")
    variant("python", default=False, description="Enable python support")
