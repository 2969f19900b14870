"""The svc-display test suite. Fixtures come from the plugin authors' kit (``svc_display.testing``,
a pytest plugin); the root conftest only wires the suite's names to them."""
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
"""The checkout the suite runs from (examples, docs, benchmarks)."""
