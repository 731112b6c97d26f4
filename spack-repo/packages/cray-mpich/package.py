from spack.package import *
from spack.pkg.builtin.cray_mpich import CrayMpich as BuiltinCrayMpich


class CrayMpich(BuiltinCrayMpich):
    """Cray MPICH, as Spack's builtin recipe (no code: a site's external), with the network layer
    of the build as a variant. HPE ships cray-mpich 8 in two builds of the same ABI, over
    libfabric (the cray-mpich module, /opt/cray/pe/mpich/<v>/ofi/...) and over UCX (the
    cray-mpich-ucx module, /opt/cray/pe/mpich/<v>/ucx/...), which the builtin cannot tell apart:
    SC'23 Table 6 compares them ('IB+CrayMpich+ucx' against 'IB+CrayMpich+ofi'), so a spec names
    the build, `^cray-mpich@8.1.25 netmod=ucx`, and the site registers each as its external."""

    maintainers("hpcaas-bench")

    variant(
        "netmod",
        default="ofi",
        values=("ofi", "ucx"),
        multi=False,
        when="@8:",
        description="Network layer of the build: libfabric (cray-mpich) or UCX (cray-mpich-ucx)",
    )

    @property
    def modname(self):
        module = "cray-mpich-ucx" if self.spec.satisfies("netmod=ucx") else "cray-mpich"
        return f"{module}/{self.version}"
