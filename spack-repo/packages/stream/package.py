from spack.package import *
from spack.pkg.builtin.stream import Stream as BuiltinStream


class Stream(BuiltinStream):
    """STREAM, as Spack's builtin recipe, with its version pinned.

    The builtin declares version 5.10 on the repository's default branch, so what it builds
    changes with every push. This is the newest commit (stream.c still "Revision: 5.10").
    """

    maintainers("hpcaas-bench")

    version("5.10", commit="6703f7504a38a8da96b353cadafa64d3c2d7a2d3")
