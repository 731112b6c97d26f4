"""Where the project tree is: $HPCAAS_ROOT (setup-env.sh exports it), else the nearest folder
above the working directory that holds pins.env, else the checkout this package was loaded from.
So the package works from an install (pip install .) as well as from a checkout."""

import os
from pathlib import Path


def _find_root() -> Path:
    if os.environ.get("HPCAAS_ROOT"):
        return Path(os.environ["HPCAAS_ROOT"]).resolve()
    here = Path.cwd().resolve()
    for folder in (here, *here.parents):
        if (folder / "pins.env").is_file():
            return folder
    return Path(__file__).resolve().parents[1]


ROOT = _find_root()
CONFIGS = ROOT / "configs"
WORKSPACES = ROOT / "ramble-workspaces"
SCHEDULERS = CONFIGS / "schedulers"
