"""A system's compilers are checked against its target when it loads, by archspec's own data as
Spack v0.23.1 vendors it: a copy whose compiler cannot build for its target is refused on one
line naming both (hpcaas/toolchain.py)."""

import shutil
import sys
from pathlib import Path

import pytest
import yaml
from testkit import systems_cli

from analysis.errors import InputError
from hpcaas import environments, systems, toolchain
from hpcaas.paths import CONFIGS, ROOT

SYSTEMS = [p.name for p in systems.system_folders(CONFIGS) if p.name not in environments.GENERATED]


def cli(*args, configs=CONFIGS):
    return systems_cli(*args, configs=configs)


def too_old(compiler: str, target: str) -> str:
    """A version of `compiler` that archspec says cannot build for `target`: below its lowest."""
    lows = [e["versions"].split(":")[0] for e in toolchain.archspec_targets()[target].compilers[compiler]]
    lowest = min((tuple(int(x) for x in v.split(".")) for v in lows if v), default=(1,))
    version = f"{lowest[0] - 1}.1.0" if lowest[0] > 1 else "0.1.0"
    assert toolchain.why_not(f"{compiler}@{version}", target), (compiler, version, target)
    return version


def test_archspec_is_the_copy_spack_vendors():
    toolchain.archspec_targets()
    assert sys.modules["archspec"].__file__ == str(toolchain.ARCHSPEC / "__init__.py")
    assert toolchain.ARCHSPEC.is_relative_to(ROOT / ".tools/spack/lib/spack/external")


@pytest.mark.parametrize("name", SYSTEMS)
def test_every_system_builds_for_its_target(name):
    folder = CONFIGS / name
    doc = systems.load_system(folder)
    _, offered, default = toolchain.compilers(folder)
    target, _ = toolchain.targets(folder, systems.value(doc, "processor.target"))
    assert toolchain.why_not(default, target) is None, (name, default, target)
    toolchain.check(folder, systems.value(doc, "processor.target"))


def test_a_copy_with_an_incompatible_compiler_is_refused_naming_compiler_and_target(tmp_path):
    """The issue's case: a cloud system copied to describe another instance type, its compiler
    left at one archspec says cannot build for the new target."""
    name = "aws-hpc7a-efa"
    folder = tmp_path / name
    shutil.copytree(CONFIGS / name, folder)
    doc = systems.load_system(folder)
    target = systems.value(doc, "processor.target")
    compilers_file = folder / "spack/compilers.yaml"
    compilers = yaml.safe_load(compilers_file.read_text())
    old = compilers["compilers"][0]["compiler"]["spec"].replace("@=", "@")
    version = too_old("gcc", target)
    compilers["compilers"][0]["compiler"]["spec"] = f"gcc@={version}"
    compilers_file.write_text(yaml.safe_dump(compilers))
    image = (
        (folder / "system.yaml").read_text().replace(f"compiler: {{value: {old},", f"compiler: {{value: gcc@{version},")
    )
    (folder / "system.yaml").write_text(image)

    proc = cli("validate", str(folder), configs=tmp_path)
    out = (proc.stdout + proc.stderr).strip()
    assert proc.returncode == 2, out
    assert len(out.splitlines()) == 1 and "Traceback" not in out, out
    assert out.startswith(
        f"{compilers_file}: compilers: gcc@{version} cannot build for {target} (archspec: needs gcc >= "
    )
    with pytest.raises(InputError) as err:
        systems.check_system_dir(folder)
    assert err.value.file == str(compilers_file) and f"gcc@{version} cannot build for {target}" in err.value.expected


def test_the_images_compiler_alone_is_refused_where_spack_builds_one_first(tmp_path):
    """GCP's HPC VM image ships a gcc archspec refuses for the CPU: offering it (no
    definitions.yaml naming the gcc Spack builds first) is refused, naming it and the target."""
    refused = []
    for name in SYSTEMS:
        folder = CONFIGS / name
        doc = systems.load_system(folder)
        image = doc.get("image", {}).get("compiler", {}).get("value")
        target = systems.value(doc, "processor.target")
        if image and toolchain.why_not(image, target):
            copy = tmp_path / name
            shutil.copytree(folder, copy)
            (copy / "spack/definitions.yaml").unlink()
            with pytest.raises(InputError) as err:
                systems.check_system_dir(copy)
            assert err.value.file == str(copy / "spack/compilers.yaml")
            assert err.value.expected.startswith(f"{image} cannot build for {target} (archspec: ")
            refused.append(name)
    assert refused, "no system ships an image compiler that cannot build for its CPU (GCP's HPC VM image does)"


def test_a_study_is_not_rendered_for_a_refused_system(tmp_path):
    """ramble_config (what hpcaas render and make dry-run read) checks it too."""
    name = "gcp-h3-sapphirerapids"
    copy = tmp_path / name
    shutil.copytree(CONFIGS / name, copy)
    (copy / "spack/definitions.yaml").unlink()
    with pytest.raises(InputError) as err:
        systems.ramble_config(copy)
    assert "cannot build for sapphirerapids" in err.value.expected


def test_a_compiler_the_family_knows_only_up_to_an_ancestor_says_so():
    """archspec's other refusal: a compiler it knows for the family but not for this target."""
    targets = toolchain.archspec_targets()
    target = next(
        t for t, u in targets.items() if u.family.name == "x86_64" and "intel" not in u.compilers and u.ancestors
    )
    reason = toolchain.why_not("intel@2021.4.0", target)
    assert reason and reason.startswith("archspec: intel optimizes up to ")


BOOTSTRAPPED = [  # systems whose image compiler archspec refuses for the CPU: they build with one Spack builds first
    n
    for n in SYSTEMS
    if (image := systems.load_system(CONFIGS / n).get("image", {}).get("compiler", {}).get("value"))
    and toolchain.why_not(image, systems.value(systems.load_system(CONFIGS / n), "processor.target"))
]


@pytest.mark.parametrize("name", BOOTSTRAPPED)
def test_where_the_images_compiler_cannot_build_the_lock_uses_the_one_spack_builds_first(name):
    import json

    folder = CONFIGS / name
    _, _, default = toolchain.compilers(folder)
    image = systems.load_system(folder)["image"]["compiler"]["value"]
    assert default != image and default in {
        c["compiler"]["spec"].replace("@=", "@")
        for c in yaml.safe_load((folder / "spack/compilers.yaml").read_text())["compilers"]
    }
    lock = environments.folder(environments.VALIDATION, name) / "spack.lock"
    specs = json.loads(lock.read_text())["concrete_specs"].values()
    built = {f"{s['compiler']['name']}@{s['compiler']['version']}" for s in specs if "compiler" in s}
    assert built == {default}, (name, built)
    runtime = [s["version"] for s in specs if s["name"] == "gcc-runtime"]
    assert runtime == [default.split("@")[1]], runtime


def test_the_dry_run_of_the_validation_suite_builds_with_it(project):
    from testkit import run

    name = BOOTSTRAPPED[0]
    doc = systems.load_system(CONFIGS / name)
    _, _, default = toolchain.compilers(CONFIGS / name)
    target, _ = toolchain.targets(CONFIGS / name, systems.value(doc, "processor.target"))
    ws = Path(run(f"hpcaas dry-run validate {name}").stdout.strip().splitlines()[-1])
    envs = list((ws / "software").rglob("spack.yaml"))
    specs = [s for env in envs for s in yaml.safe_load(env.read_text())["spack"]["specs"]]
    assert specs and all(f"%{default} target={target}" in s for s in specs), specs
