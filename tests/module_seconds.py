"""The suite's modules by the time their tests took in a measured run, heaviest first, so that
``make test`` starts the long modules first (tests/conftest.py orders the items by it; xdist's
``--dist loadscope --no-loadscope-reorder`` hands modules out in that order). Without it, a module
of five minutes handed out late is the run's last five minutes.

``tests/module_seconds.json`` is measured, not guessed: refresh it from the JUnit file of a whole
run (``make test PYTEST_ARGS="-n 4 --dist loadscope --no-loadscope-reorder
--junitxml=/tmp/suite.xml"``, then ``.venv/bin/python -m tests.module_seconds /tmp/suite.xml``). A module missing from it (new since)
counts as the median module.
"""
from __future__ import annotations

import json
import statistics
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

FILE = Path(__file__).with_name("module_seconds.json")
REPO = Path(__file__).resolve().parents[1]


def load() -> dict[str, float]:
    """``{"tests/display/test_canvas.py": seconds, ...}``; empty when the file is missing or unreadable."""
    try:
        data = json.loads(FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def weigher(times: dict[str, float]):  # noqa: ANN201
    """``weight(path)``: the module's measured seconds, the median of the known ones when unknown."""
    default = statistics.median(times.values()) if times else 0.0
    return lambda path: times.get(path, default)


def from_junit(path: Path) -> dict[str, float]:
    """Each module's total test time (setup, call and teardown) in a pytest JUnit file."""
    seconds: Counter[str] = Counter()
    for case in ET.parse(path).iter("testcase"):
        module = case.get("classname", "")
        # classname is the dotted module, plus the class for tests in a class
        parts = module.split(".")
        while parts and not (REPO / Path(*parts)).with_suffix(".py").is_file():
            parts.pop()
        if parts:
            seconds[Path(*parts).with_suffix(".py").as_posix()] += float(case.get("time") or 0)
    return {name: round(value, 1) for name, value in seconds.most_common()}


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m tests.module_seconds JUNIT_XML", file=sys.stderr)
        return 2
    times = from_junit(Path(argv[0]))
    if not times:
        print(f"no test cases of this checkout's modules in {argv[0]}", file=sys.stderr)
        return 1
    FILE.write_text(json.dumps(times, indent=0) + "\n", encoding="utf-8")
    print(f"{FILE}: {len(times)} modules, {sum(times.values()):.0f} s of tests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
