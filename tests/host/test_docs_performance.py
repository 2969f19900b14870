"""docs/performance.md gives today's figure of each benchmark, and every figure says how to get it
again: each table is introduced by a "Measured" paragraph naming the date, the machine's load and
the command (a ``benchmarks/`` script) that printed it; the page stays a reference, not a diary."""
import re

from tests import REPO

DOC = REPO / "docs" / "performance.md"
COMMAND = re.compile(r"`\.venv/bin/python benchmarks/(\w+)\.py[^`]*`")
DATE = re.compile(r"\b20\d\d-\d\d-\d\d\b")


def tables(lines: list[str]) -> list[int]:
    """The line index of each table's header (the line above a ``|---`` separator)."""
    return [i - 1 for i, line in enumerate(lines) if re.match(r"^\|[-: |]+\|$", line.strip())]


def introduction(lines: list[str], header: int) -> str:
    """The "Measured" paragraph above a table: from the last line starting with "Measured" before
    it, in the same section, up to the table; "" when there is none."""
    for i in range(header - 1, -1, -1):
        if lines[i].startswith("#") or (i < header - 1 and lines[i].startswith("|")):
            return ""
        if lines[i].startswith("Measured"):
            return " ".join(lines[i:header])
    return ""


def problems(text: str) -> list[str]:
    lines = text.splitlines()
    found = []
    for header in tables(lines):
        intro = introduction(lines, header)
        name = f"table at line {header + 1}"
        if not intro:
            found.append(f"{name}: no 'Measured' paragraph above it")
            continue
        command = COMMAND.search(intro)
        if command is None:
            found.append(f"{name}: no `.venv/bin/python benchmarks/...` command")
        elif not (REPO / "benchmarks" / f"{command[1]}.py").is_file():
            found.append(f"{name}: benchmarks/{command[1]}.py does not exist")
        if DATE.search(intro) is None:
            found.append(f"{name}: no date")
        if "load" not in intro and "quiet" not in intro:
            found.append(f"{name}: no load")
    return found


def test_every_figure_names_its_command_date_and_load():
    text = DOC.read_text()
    assert len(tables(text.splitlines())) >= 9
    assert problems(text) == []


def test_the_page_is_a_reference_of_about_300_lines():
    assert len(DOC.read_text().splitlines()) <= 300


def test_a_table_without_its_command_is_found():
    bad = ("## X\n\nMeasured 2026-11-28, load 3, by hand:\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
           "| c |\n|---|\n| 3 |\n")
    assert problems(bad) == ["table at line 5: no `.venv/bin/python benchmarks/...` command",
                             "table at line 9: no 'Measured' paragraph above it"]
