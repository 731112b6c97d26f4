"""Render a study for a system at a scale: the complete Ramble workspace configuration.

    hpcaas render STUDY SYSTEM [--scale paper|small] [--out DIR]

A study (ramble-workspaces/<study>/study.yaml) is written once: its `ramble:` block is the
experiment (applications, matrix, software) and its `scales:` the presets. A system
(configs/<system>/) supplies the resources and the software in each role. Rendering merges,
from lowest to highest precedence:

1. the system's Ramble variables (hpcaas.systems.ramble_config: its own and those derived from
   system.yaml) and environment;
2. the study's `ramble:` block;
3. the software roles (compiler, mpi, target, fabric): on a paper system the paper's values
   (`software.paper.<system>`, per application where the paper gives them so), elsewhere the
   system's own (spack/definitions.yaml, system.yaml, ramble/fabrics.yaml): its default, or all
   of them for a role the study compares (`software.sweep`). A compiler or MPI is a name in the
   experiment (`{compiler}`, `{mpi}`: the package name without '-') and a spec in the build
   (`%{compiler_spec}`, `^{mpi_spec}`);
4. the scale preset: `scales.<scale>.variables`, then `scales.<scale>.systems.<system>.variables`,
   and `scales.<scale>.n_repeats` (every experiment's repeats).

A role or preset variable replaces the variable of that name wherever the study sets it
(workspace, application, workload or experiment), so a preset shrinks a swept axis in place and
a role fills the axis an experiment's matrix names.

and writes DIR/configs/ramble.yaml and DIR/configs/execute_experiment.tpl (the job script of the
system's scheduler). DIR is the run place's workspace (runs/<system>/<scale>/<study>/workspace)
unless --out says otherwise; the rendered files are generated, never edited. Where the pair has a
committed lock (environments/<study>/<system>/), the command also lets Ramble write the Spack
environments and gives each the lock's solve of its specs: `ramble workspace setup` then installs
exactly the committed configuration.
"""

import copy
import os
import shutil
from pathlib import Path

import yaml

from analysis.errors import InputError
from hpcaas import studies, systems
from hpcaas.paths import CONFIGS, ROOT, WORKSPACES

SCALES = ("paper", "small")
ROLES = ("compiler", "mpi", "target", "fabric")
#: The lists of spack/definitions.yaml a role's default and sweep come from, and the spec sigil.
DEFINITIONS = {"compiler": ("default_compiler", "compilers", "%"), "mpi": ("default_mpi", "mpis", "^")}


def _replace_everywhere(node, overrides: dict):
    """Set each overridden variable wherever a `variables:` mapping of the block defines it."""
    if isinstance(node, dict):
        for key, child in node.items():
            if key == "variables" and isinstance(child, dict):
                for name in overrides.keys() & child.keys():
                    child[name] = copy.deepcopy(overrides[name])
            else:
                _replace_everywhere(child, overrides)
    elif isinstance(node, list):
        for child in node:
            _replace_everywhere(child, overrides)


def _set_repeats(node, repeats):
    """n_repeats of every experiment (and wherever else the block sets it) to the preset's."""
    if isinstance(node, dict):
        for key, child in node.items():
            if key == "n_repeats":
                node[key] = repeats
            else:
                _set_repeats(child, repeats)
    elif isinstance(node, list):
        for child in node:
            _set_repeats(child, repeats)


def preset(doc: dict, study: str, system: str, scale: str) -> dict:
    """The variables of a scale preset for a system: the preset's own, then its per-system ones."""
    if scale not in SCALES:
        raise InputError(studies.study_file(study), "scales", f"a scale among {', '.join(SCALES)}; got {scale!r}")
    presets = doc.get("scales", {})
    if scale not in presets:
        if scale == "paper":  # a study without presets is written at the paper's scale
            return {}
        raise InputError(studies.study_file(study), f"scales.{scale}", "a preset of the study (see hpcaas/studies.py)")
    chosen = presets[scale] or {}
    return {**chosen.get("variables", {}), **chosen.get("systems", {}).get(system, {}).get("variables", {})}


def _name(spec: str, among=()) -> str:
    """The name a compiler or MPI has in experiment names and variable names: the package
    without '-' (Ramble reads '-' inside braces as a minus); where `among` holds another build of
    the same package, then the value of each key=value variant, so that the two differ
    (cray-mpich@8.1.25 netmod=ucx beside cray-mpich@8.1.25: craympich_ucx)."""
    words = spec.split()
    base = words[0].split("@")[0].replace("-", "")
    if sum(1 for other in among if other and other.split()[0].split("@")[0].replace("-", "") == base) < 2:
        return base
    values = [w.split("=", 1)[1].replace(",", "_") for w in words[1:] if "=" in w]
    return "_".join([base, *values])


def _spack_lists(folder: Path) -> dict:
    """The system's compilers and MPIs as definitions.yaml lists: that file when the system has
    one, else its compilers.yaml and the MPI providers of packages.yaml (with their externals'
    versions)."""
    file = folder / "spack/definitions.yaml"
    if file.exists():
        definitions = {}
        for entry in yaml.safe_load(file.read_text()).get("definitions", []):
            definitions.update(entry)
        return definitions
    compilers = [
        c["compiler"]["spec"].replace("@=", "@")
        for c in (yaml.safe_load((folder / "spack/compilers.yaml").read_text()) or {}).get("compilers", [])
    ]
    packages = (yaml.safe_load((folder / "spack/packages.yaml").read_text()) or {}).get("packages", {})
    mpis = []
    for name in packages.get("all", {}).get("providers", {}).get("mpi", []):
        externals = packages.get(name, {}).get("externals", [])
        mpis.append(externals[0]["spec"].split()[0] if externals else name)
    return {"compilers": ["%" + c for c in compilers], "mpis": ["^" + m for m in mpis]}


def _system_roles(system: str) -> dict:
    """role -> (default, all) of the system."""
    folder = CONFIGS / system
    definitions = _spack_lists(folder)
    roles = {}
    for role, (default, every, sigil) in DEFINITIONS.items():
        specs = [s.lstrip(sigil) for s in definitions.get(every, [])]
        first = [s.lstrip(sigil) for s in definitions.get(default, [])] or specs[:1]
        roles[role] = (first[0] if first else None, first[:1] + [s for s in specs if s not in first[:1]])
    doc = systems.load_system(folder)
    native = systems.value(doc, "processor.target")
    roles["target"] = (native, [native, systems.target_family(native)])
    fabrics = yaml.safe_load((folder / "ramble/fabrics.yaml").read_text())["fabrics"]
    default = systems.ramble_config(folder, doc)["variables"]["fabric"]
    roles["fabric"] = (default, [default] + [f for f in fabrics if f != default])
    return roles


def _roles(doc: dict, study: str, system: str) -> tuple:
    """({role: value or [values]}, {application: {role: value}}) for the study on the system."""
    if "software" not in doc:  # a study that names its software itself (smoke-like local checks)
        return {}, {}
    software = doc["software"] or {}
    sweep = software.get("sweep", [])
    paper = software.get("paper", {})
    for role in sweep:
        if role not in ROLES:
            raise InputError(
                studies.study_file(study), "software.sweep", f"roles among {', '.join(ROLES)}; got {role!r}"
            )
    if system in paper:
        chosen = {r: v for r, v in paper[system].items() if r in ROLES}
        apps = paper[system].get("applications", {})
    else:
        theirs = _system_roles(system)
        chosen = {r: (theirs[r][1] if r in sweep else theirs[r][0]) for r in ROLES if theirs[r][0] is not None}
        apps = {}
    return chosen, apps


def _role_variables(chosen: dict) -> dict:
    """Ramble variables of the roles: names (lists where swept) and the spec behind each name."""
    out = {}
    for role, value in chosen.items():
        values = value if isinstance(value, list) else [value]
        if role in DEFINITIONS:
            for spec in values:
                out[f"{role}_spec_{_name(spec, values)}"] = spec
            out[f"{role}_spec"] = "{" + role + "_spec_{" + role + "}}"
            names = [_name(v, values) for v in values]
            out[role] = names if isinstance(value, list) else names[0]
        else:
            out[role] = value
    return out


PROFILERS = ("hpctoolkit",)


def profile_spec(profiler: str) -> str:
    """The profiler's Spack spec, as environments/<profiler>/spack.yaml builds it."""
    doc = yaml.safe_load((ROOT / "environments" / profiler / "spack.yaml").read_text())["spack"]["specs"][0]
    return doc["matrix"][0][0] if isinstance(doc, dict) else doc


def _add_profiler(block: dict, profiler: str):
    """Every experiment runs under the profiler's Ramble modifier, its build in every environment."""
    block["modifiers"] = [*block.get("modifiers", []), {"name": profiler}]
    software = block.setdefault("software", {})
    software.setdefault("packages", {})[profiler] = {"pkg_spec": profile_spec(profiler)}
    for env in software.get("environments", {}).values():
        env["packages"] = [*env.get("packages", []), profiler]


def load(study: str, system: str) -> dict:
    """The study's definition; `catalog` is generated from the tree (hpcaas/catalog.py)."""
    if study == "catalog":
        from hpcaas import catalog

        return catalog.study_doc(system, os.environ.get("HPCAAS_CATALOG_TIER", "all"))
    return studies.load(study)


def workspace_config(study: str, system: str, scale: str = "paper", profile: str = None) -> dict:
    """{'ramble.yaml': the configuration as a dict, 'execute_experiment.tpl': the job script}."""
    doc = load(study, system)
    sysconf = systems.ramble_config(CONFIGS / system)
    block = copy.deepcopy(doc["ramble"])
    chosen, per_app = _roles(doc, study, system)
    roles = _role_variables(chosen)
    _replace_everywhere(block, roles)
    for app, values in per_app.items():
        app_block = block.get("applications", {}).get(app)
        if app_block is None:
            raise InputError(
                studies.study_file(study),
                f"software.paper.{system}.applications.{app}",
                "an application of the study's ramble block",
            )
        app_roles = _role_variables(values)
        _replace_everywhere(app_block, app_roles)
        app_block["variables"] = {**app_block.get("variables", {}), **{r: app_roles[r] for r in values}}
        roles.update({k: v for k, v in app_roles.items() if k not in values})
    # An MPI's launcher: the system's launcher_for_<mpi>, else its default launcher.
    mpis = chosen.get("mpi") if isinstance(chosen.get("mpi"), list) else [chosen.get("mpi")]
    launchers = {
        f"launcher_for_{_name(m, mpis)}": sysconf["variables"]["launcher"]
        for m in mpis
        if m and f"launcher_for_{_name(m, mpis)}" not in sysconf["variables"]
    }
    overrides = preset(doc, study, system, scale)
    _replace_everywhere(block, overrides)
    repeats = ((doc.get("scales") or {}).get(scale) or {}).get("n_repeats")
    if repeats is not None:
        _set_repeats(block, repeats)
    # At the workspace level a role has one value (a list there would multiply every
    # experiment); the experiments that sweep it got the list above.
    scalar_roles = {k: (v[0] if isinstance(v, list) else v) for k, v in roles.items()}
    # `study`: the study's name wherever its workspace is (Ramble's workspace_name is the folder's).
    variables = {
        "study": study,
        **sysconf["variables"],
        **launchers,
        **block.get("variables", {}),
        **scalar_roles,
        **overrides,
    }
    env_vars = copy.deepcopy(sysconf["env_vars"])
    for action, values in block.get("env_vars", {}).items():
        env_vars[action] = {**env_vars.get(action, {}), **values} if isinstance(values, dict) else values
    if profile:
        _add_profiler(block, profile)
    rendered = {**block, "variables": variables}
    # Every Spack command Ramble runs for this workspace reads the system's Spack config (a
    # command-line scope, as Ramble provides for it), whatever the shell's own Spack scopes are.
    spack = rendered.setdefault("config", {}).setdefault("spack", {})
    spack["global"] = {"flags": f"-C {CONFIGS / system / 'spack'}"}
    if env_vars:
        rendered["env_vars"] = env_vars
    return {"ramble.yaml": {"ramble": rendered}, "execute_experiment.tpl": sysconf["template"]}


def render(study: str, system: str, scale: str = "paper", out=None, profile: str = None) -> Path:
    """Write the workspace's configs/ for (study, system, scale); return the workspace folder
    (by default the run place's, runs/<system>/<scale>/<study>/workspace)."""
    if out is None:
        from hpcaas.run.place import Place

        out = Place(study, system, scale).workspace
    out = Path(out)
    files = workspace_config(study, system, scale, profile)
    configs = out / "configs"
    configs.mkdir(parents=True, exist_ok=True)
    header = (
        f"# Generated by `hpcaas render {study} {system} --scale {scale}` from "
        f"ramble-workspaces/{study}/study.yaml and configs/{system}/: do not edit.\n"
    )
    (configs / "ramble.yaml").write_text(header + yaml.safe_dump(files["ramble.yaml"], sort_keys=False, width=1000))
    (configs / "execute_experiment.tpl").write_text(files["execute_experiment.tpl"])
    aux = WORKSPACES / study / "auxiliary_software_files"  # Spack config the study's environments include
    if aux.is_dir():
        shutil.rmtree(configs / aux.name, ignore_errors=True)
        shutil.copytree(aux, configs / aux.name)
    return out


def register(sub):
    """`hpcaas render STUDY SYSTEM [--scale S] [--out DIR]`."""
    ap = sub.add_parser(
        "render",
        help="write a study's Ramble workspace configs for a system and scale",
        description=__doc__.split("\n")[0],
    )
    ap.add_argument("study", help="a folder of ramble-workspaces/")
    ap.add_argument("system", help="a folder of configs/")
    ap.add_argument("--scale", default="paper", choices=SCALES)
    ap.add_argument("--out", help="the workspace folder (default: runs/<system>/<scale>/<study>/workspace)")
    ap.add_argument("--profile", choices=PROFILERS, help="run every MPI executable under this profiler")
    ap.set_defaults(func=_main)


def _main(args) -> int:
    """Render; where the pair has a committed lock, Ramble writes the environments and each gets
    the lock's solve, so `ramble workspace setup` builds the committed configuration."""
    import sys

    from hpcaas.run import dryrun, tools

    ws = render(args.study, args.system, args.scale, args.out, args.profile)
    env = tools.environment(HPCAAS_SYSTEM=args.system)
    with open(ws / "render.log", "w") as log:
        seeded = dryrun.seed_committed(args.study, args.system, ws, env, log)
    if seeded:
        print(f"{len(seeded)} Spack environments hold the committed lock's specs: {', '.join(seeded)}", file=sys.stderr)
    print(ws)
    return 0
