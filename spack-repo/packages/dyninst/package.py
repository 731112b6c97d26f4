from spack.package import *
from spack.pkg.builtin.dyninst import Dyninst as BuiltinDyninst


class Dyninst(BuiltinDyninst):
    """Dyninst (HPCToolkit's hpcstruct parses binaries with it), as Spack's builtin recipe.

    The builtin fetches GitHub's generated release tarballs; here the same releases come from
    upstream git at the commits their tags point to, so a git mirror of the repository is
    enough to build offline. 13.0.0 is the first release that takes oneTBB (2021+), the TBB of
    current distributions; 12.x conflicts with it in the builtin recipe.
    """

    maintainers("hpcaas-bench")

    version("13.0.0", commit="268b6300b59d507317b6c342ae9588eb6fedf2ac")  # tag v13.0.0
    version("12.3.0", commit="334b6856e28fd34a698ad74aa277f1399a814183")  # tag v12.3.0
