"""A co-runner suite.sh starts beside a tool on the faulty node (FAULT=<node>:corunner<%> or
membw): it takes a share of each core's time, or memory bandwidth, until suite.sh kills it.

    python3 corunner.py cpu:<percent> | mem
"""

import sys
import time


def busy(share: float, period: float = 0.1):
    """Busy for `share` of each period of its own CPU time, asleep the rest."""
    work = share * period
    while True:
        start = time.process_time()
        while time.process_time() - start < work:
            pass
        time.sleep(period - work)


def stream():
    """Copy 256 MiB back and forth: memory bandwidth taken from the node."""
    a = bytearray(256 << 20)
    while True:
        b = bytes(a)
        a[:] = b


if __name__ == "__main__":
    kind, _, percent = sys.argv[1].partition(":")
    busy(float(percent) / 100) if kind == "cpu" else stream()
