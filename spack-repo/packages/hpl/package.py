from spack.package import *
from spack.pkg.builtin.hpl import Hpl as BuiltinHpl


class Hpl(BuiltinHpl):
    """HPL, as Spack's builtin recipe, with 2.3 pinned to its release commit in git.

    The builtin fetches 2.3 from netlib.org by sha256; here 2.3 is the commit the release was
    tagged at (Mercurial changeset 83975599d7a1, "Added tag hpl-2.3") in HPL's git repository,
    reachable through a git mirror. The repository holds no generated configure, so the build
    runs autoreconf; configure.ac's AX_PROG_CC_MPI comes from autoconf-archive (the netlib
    tarball was generated with it).
    """

    maintainers("hpcaas-bench")

    git = "https://github.com/icl-utk-edu/hpl.git"

    version("2.3", commit="16e7e5820a84af88f461239f276aa1d8072644d5")

    for tool in ("autoconf", "automake", "libtool", "m4", "autoconf-archive"):
        depends_on(tool, type="build", when="@2.3")
