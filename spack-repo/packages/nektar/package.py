from spack.package import *
from spack.pkg.builtin.nektar import Nektar as BuiltinNektar


class Nektar(BuiltinNektar):
    """Nektar++, as Spack's builtin recipe (versions pinned by commit), built for S5 (PASC'19:
    the incompressible Navier-Stokes solver, GNU vs Arm compilers via Spack's %gcc / %arm).

    The builtin builds no solver by default and the Python interface by default (Boost.Python
    and NumPy); the benchmark needs IncNavierStokesSolver and no Python.

    Only what the build reads is checked out: the library, utilities, tests, CMake modules and
    the solvers the variants build (not the LaTeX guides, whose image sources are large), so the
    top-level CMakeLists.txt adds docs/ only when it is there (docs-optional.patch). The solver's
    own regression sessions (solvers/IncNavierStokesSolver/Tests) are installed to
    share/nektar/tests, for runs that need a real case.

    Build time on the 2-core development machine (shared, load average ~10): 2-3% of the build
    in the first 5 minutes (the library's ~1,500 C++ units dominate), i.e. 2.5 h or more; it also
    cannot finish there offline, the gsmpi tarball (below) being a download from nektar.info.
    """

    maintainers("hpcaas-bench")

    variant(
        "ins_solver",
        default=True,
        description="Builds an executable associated with the Incompressible Navier Stokes solver",
    )
    variant("python", default=False, description="Enable python support")

    git_sparse_paths = ("cmake", "library", "utilities", "tests", "solvers/IncNavierStokesSolver", "solvers/ADRSolver")
    # A fixed checkout (Spack caches one source archive per commit, whatever the variants): the
    # other solvers are not in it.
    for _solver in (
        "acoustic",
        "cardiac",
        "compflow",
        "diff",
        "dummy",
        "elasticity",
        "imgwarp",
        "mmf",
        "pulsewave",
        "shwater",
        "vortexwave",
    ):
        conflicts(
            f"+{_solver}_solver",
            msg="this recipe checks out IncNavierStokesSolver and ADRSolver only "
            "(git_sparse_paths): add the solver's directory to build it",
        )
    patch("docs-optional.patch", when="@5.3.0")

    # With MPI, Nektar++'s CMake downloads gslib's MPI layer from nektar.info while it builds
    # (cmake/ThirdPartyMPI.cmake, checked against this MD5); fetched by Spack instead, into the
    # directory it looks in first, it is checksummed, mirrored and offline-capable like the source.
    resource(
        name="gsmpi",
        url="https://www.nektar.info/thirdparty/gsmpi-1.2.1_2.tar.bz2",
        md5="3690b4a658324cd5ad17cf8f6115fb5d",
        expand=False,
        destination="ThirdParty",
        when="+mpi",
    )

    def install(self, spec, prefix):
        super().install(spec, prefix)
        if spec.satisfies("+ins_solver"):
            install_tree(
                join_path(self.stage.source_path, "solvers", "IncNavierStokesSolver", "Tests"),
                join_path(prefix.share, "nektar", "tests", "IncNavierStokesSolver"),
            )
