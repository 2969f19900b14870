"""docs/plugins.md's table of the renderer kit names each function with its parameters as the
code has them (the kit was not documented for plugin authors: they read the kit's source)."""
import inspect
import re

from tests import REPO

CALL = re.compile(r"`(\w+)\(([^)]*)\)`")


def test_the_kit_table_matches_the_code():
    from svc_host.kit import display as kit

    text = (REPO / "docs" / "plugins.md").read_text()
    table = text[text.index("| **`svc_host.kit.display`**"):]
    table = table[:table.index("\n\n")]
    kivy = table.index("| **`kit.widgets()`**")
    checked = 0
    for match in CALL.finditer(table):
        if match.group(1) == "widgets" and match.start() > kivy:
            continue  # the section's heading
        module = kit if match.start() < kivy else kit.widgets()
        function = getattr(module, match.group(1))
        documented = [name.strip().lstrip("*") for name in match.group(2).split(",") if name.strip()]
        actual = list(inspect.signature(function).parameters)
        assert documented == actual, (match.group(1), documented, actual)
        checked += 1
    assert checked >= 25
