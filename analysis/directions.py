"""Which way is better for a metric: its unit decides when it can (a time is lower-is-better, a
rate higher-is-better), then its name; a metric neither knows (a count, a memory size) has no
direction and the commands that need one ask for --higher-is-better / --lower-is-better.

Add a unit or a name pattern here when a new FOM needs it."""

import re

from analysis import units
from analysis.errors import InputError

HIGHER, LOWER = "higher", "lower"

#: Units whose two sides are both times: which one is simulated and which is the wall clock.
_EXPLICIT_UNITS = {
    "ns/day": HIGHER,
    "ps/day": HIGHER,
    "us/day": HIGHER,
    "ns/hour": HIGHER,
    "days/ns": LOWER,
    "day/ns": LOWER,
    "hours/ns": LOWER,
    "s/ns": LOWER,
    "s/ps": LOWER,
}

#: Work units of rates that are not spelled as '<work>/<time>'.
_RATE_UNITS = {
    "gups",
    "mops",
    "mop/s",
    "gup/s",
    "flops",
    "mflops",
    "gflops",
    "tflops",
    "pflops",
    "iterations/s",
    "timesteps/s",
    "steps/s",
}

#: Metric-name patterns, for units that say nothing ('', %, x, count).
_NAME_PATTERNS = [
    (
        re.compile(
            r"efficien|speed-?up|bandwidth|throughput|perf|flop|gups|rate|per_?second|"
            r"ns_?per_?day|per_?dollar|iterations_per|bytes_per_s",
            re.I,
        ),
        HIGHER,
    ),
    (re.compile(r"time|latency|elapsed|duration|seconds|cost|days_?per_?ns", re.I), LOWER),
]


def of(metric, unit):
    """HIGHER, LOWER or None for a metric with this unit."""
    key = str(unit).strip().replace(" ", "").lower()
    if key in _EXPLICIT_UNITS:
        return _EXPLICIT_UNITS[key]
    fam = units.family(key)
    if fam == "time":
        return LOWER
    if fam in ("bandwidth", "flops") or key in _RATE_UNITS:
        return HIGHER
    if "/" in key:
        work, per = key.split("/", 1)
        if units.family(per) == "time" and units.family(work) != "time":
            return HIGHER  # something per second: a rate
        if units.family(work) == "time" and units.family(per) != "time":
            return LOWER  # seconds per step: a cost
    for pattern, direction in _NAME_PATTERNS:
        if pattern.search(str(metric)):
            return direction
    return None


def override(metric, higher=None, lower=None):
    """The direction the command line forces for this metric, or None. Each flag is None (not
    given), [] (given bare: applies to the command's --metric) or a list of metric names."""
    for names, direction in ((higher, HIGHER), (lower, LOWER)):
        if names is not None and (names == [] or metric in names):
            return direction
    return None


def resolve(metric, unit, file, higher=None, lower=None):
    """The direction of a metric: forced by the flags, else known here; unknown is bad input."""
    direction = override(metric, higher, lower) or of(metric, unit)
    if direction is None:
        raise InputError(
            file,
            "metric",
            f"a known direction for '{metric}' (unit '{unit}'): " "pass --higher-is-better or --lower-is-better",
        )
    return direction


def oriented_ratio(better_side, worse_side, direction):
    """How many times better `better_side` is than `worse_side` (> 1 means better), either way
    round: times divide the other way from rates."""
    return worse_side / better_side if direction == LOWER else better_side / worse_side
