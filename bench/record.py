"""Where a figure was measured (date, host, cores and target from configs/local/system.yaml, the
load when it started: the machine is shared, so a figure is only as quiet as its neighbours) and
runs/bench/bench.csv, which keeps every run's figures (appended, one row per figure)."""

import csv
import datetime
import os
import socket
from dataclasses import dataclass, field
from pathlib import Path

from hpcaas.paths import CONFIGS, ROOT

CSV = ROOT / "runs" / "bench" / "bench.csv"
COLUMNS = ["date", "host", "cores", "target", "load_1min", "figure", "value", "unit", "limit", "within", "command"]


@dataclass
class Figure:
    name: str
    value: float
    unit: str
    limit: float = None  # the target, when it gives one; the verdict is reported, not asserted
    command: str = ""
    notes: list = field(default_factory=list)

    @property
    def within(self) -> str:
        return "" if self.limit is None else "yes" if self.value <= self.limit else "no"

    def line(self) -> str:
        shown = f"{self.value:.3g}" if abs(self.value) < 100 else f"{self.value:.0f}"
        verdict = (
            ""
            if self.limit is None
            else f"  (target <= {self.limit:g} {self.unit}: {'within' if self.within == 'yes' else 'OVER'})"
        )
        return f"  {self.name:56s} {shown:>9s} {self.unit}{verdict}"


def machine() -> dict:
    """The columns that say where: host, cores and target of configs/local (make system)."""
    from hpcaas.systems import cores_per_node, load_system, value

    system = load_system(CONFIGS / "local")
    return {
        "host": socket.gethostname(),
        "cores": cores_per_node(system),
        "target": value(system, "processor.target"),
    }


def load() -> float:
    return os.getloadavg()[0]


def append(figures, where, started, load_1min, path=CSV) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="") as f:
        out = csv.DictWriter(f, COLUMNS, lineterminator="\n")
        if new:
            out.writeheader()
        for fig in figures:
            out.writerow(
                {
                    "date": started.isoformat(timespec="seconds"),
                    **where,
                    "load_1min": f"{load_1min:.2f}",
                    "figure": fig.name.strip(),
                    "value": f"{fig.value:.6g}",
                    "unit": fig.unit,
                    "limit": "" if fig.limit is None else f"{fig.limit:g}",
                    "within": fig.within,
                    "command": fig.command,
                }
            )
    return path


def now() -> datetime.datetime:
    return datetime.datetime.now(datetime.timezone.utc)
