"""Per-module test seconds of a whole-suite run, for ``MODULE_SECONDS`` in tests/conftest.py.

Reads the JUnit report of a run (``PYTEST_ADDOPTS="--junitxml=FILE --durations=60" make
test``): each test case's time includes its fixture setup, so a module that builds a shared
fixture carries it. Prints the modules by summed seconds (slowest first) as entries to paste
into ``MODULE_SECONDS``, and what pytest-xdist's ``--dist loadfile`` would do with them: every
test process takes two modules to start with, then the next whenever one of its two is done;
the processes share the cores (``--cores``), so with more processes than cores each runs at
cores / processes. The makespan of that model for the suite's order (``--order conftest``,
what ``tests/conftest.py`` sorts, read from a ``--collect-only`` listing) and for the modules
slowest first: only a comparison of orders (a module's time measured with its neighbours
sharing the cores is taken as its work; the waits on the shared builds are not modelled).

    python bench/suite_modules.py run.xml [--workers 3] [--cores 2] [--min 20]
"""

from __future__ import annotations

import argparse
import xml.etree.ElementTree as ET
from collections import Counter


def module_seconds(junit: str) -> Counter:
    """Summed test-case seconds per module path (``tests/.../test_x.py``)."""
    seconds: Counter = Counter()
    for case in ET.parse(junit).getroot().iter("testcase"):
        classname = case.get("classname", "")
        parts = classname.split(".")
        # the module is the dotted path up to the first part starting with test_ (a class
        # name such as TestX follows it)
        for i, part in enumerate(parts):
            if part.startswith("test_"):
                seconds["/".join(parts[: i + 1]) + ".py"] += float(case.get("time", 0))
                break
    return seconds


def makespan(order: list[str], seconds: dict[str, float], workers: int, cores: int) -> float:
    """Wall seconds of ``order`` under the loadfile model above (processor sharing)."""
    queue = list(order)
    assigned: list[list[float]] = [[] for _ in range(workers)]
    for _ in range(2):  # two modules each to start with
        for w in range(workers):
            if queue:
                assigned[w].append(seconds.get(queue.pop(0), 0.0))
    now = 0.0
    while any(assigned):
        active = [w for w in range(workers) if assigned[w]]
        rate = min(1.0, cores / len(active))
        step = min(assigned[w][0] for w in active) / rate
        now += step
        for w in active:
            assigned[w][0] -= step * rate
            if assigned[w][0] <= 1e-9:
                assigned[w].pop(0)
                if queue:
                    assigned[w].append(seconds.get(queue.pop(0), 0.0))
    return now


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit")
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--min", type=float, default=20.0, help="modules listed from (s)")
    parser.add_argument("--order", help="a `pytest --collect-only -q` listing: the suite's order")
    args = parser.parse_args()
    seconds = module_seconds(args.junit)
    total = sum(seconds.values())
    print(f"# {len(seconds)} modules, {total:,.0f} s summed;"
          f" per process {total / args.workers:,.0f}")
    for module, value in seconds.most_common():
        if value >= args.min:
            print(f'    "{module}": {value:.0f},')
    slowest_first = [m for m, _ in seconds.most_common()]
    span = makespan(slowest_first, seconds, args.workers, args.cores)
    print(f"# slowest first: makespan {span:,.0f} s")
    if args.order:
        with open(args.order) as listing:
            order = list(dict.fromkeys(line.split("::")[0] for line in listing if "::" in line))
        order += [m for m in slowest_first if m not in order]
        span = makespan(order, seconds, args.workers, args.cores)
        print(f"# the listing's order: makespan {span:,.0f} s")


if __name__ == "__main__":
    main()
