from spack.package import *
from spack.pkg.builtin.fio import Fio as BuiltinFio


class Fio(BuiltinFio):
    """fio, as Spack's builtin recipe, with 3.33 from its author's release tarball.

    The builtin fetches GitHub's archive of the tag; here 3.33 is the tarball fio's author
    publishes (brick.kernel.dk/snaps, PGP-signed), which Debian 12 ships unchanged as its orig
    tarball, so scripts/mirror.sh serves it where GitHub is out of reach. The validation suite's
    file-system part (ramble-repo/applications/node-validation) runs it.
    """

    maintainers("hpcaas-bench")

    version(
        "3.33",
        sha256="d2410e13e0f379d061d077cc5ae325835bb7c6186aa7bafc1df954cbc9b014fc",
        url="https://brick.kernel.dk/snaps/fio-3.33.tar.gz",
        preferred=True,
    )
