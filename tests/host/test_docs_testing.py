"""docs/testing.md lists exactly the modules that run on PostgreSQL too."""
import re

from tests import REPO


def test_the_storage_module_list_in_the_docs_matches_the_markers():
    text = (REPO / "docs" / "testing.md").read_text()
    listed = re.search(r"<!-- storage-modules -->(.*?)<!-- /storage-modules -->", text, re.S).group(1)
    documented = set(re.findall(r"^- (tests/\S+\.py)$", listed, re.M))
    marked = {str(path.relative_to(REPO)) for path in (REPO / "tests").rglob("test_*.py")
              if re.search(r"^pytestmark = .*pytest\.mark\.svc_display_storage", path.read_text(), re.M)}
    assert documented == marked
