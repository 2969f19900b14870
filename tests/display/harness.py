"""``python -m tests.display.harness``: ``svc-display serve`` (every builtin) plus the display test plugin."""
from __future__ import annotations

import logging
import os
import sys

from svc_host import display
from svc_host.config import load_settings
from svc_host.host import build_host
from svc_host.http.app import create_app
from svc_host.server import serve
from tests.display import fixture_plugin


def main() -> int:
    settings = load_settings(os.environ)
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    host = build_host(settings, extra_plugins=[(fixture_plugin.NAME, fixture_plugin)])
    app = create_app(host)
    display.run(host, lambda: serve(host, app))
    return 0


if __name__ == "__main__":
    sys.exit(main())
