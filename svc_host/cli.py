"""``svc-display``: serve, migrate, plugins list, plus commands that plugins add."""
from __future__ import annotations

import argparse
import json
import logging
import sys
from typing import Any, Sequence

from svc_host.config import ConfigError, load_settings, warn_deprecated
from svc_host.plugins import PluginError, load_plugins

log = logging.getLogger("svc_host")


def _configure_logging(level: str) -> None:
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def cmd_serve(host: Any, args: argparse.Namespace) -> int:
    from svc_host import display
    from svc_host.http.app import create_app
    from svc_host.server import serve

    app = create_app(host)
    # Kivy needs the main thread: the runtime serves HTTP on a background thread when a
    # canvas runs, or right here when headless.
    display.run(host, lambda: serve(host, app))
    return 0


def cmd_migrate(host: Any, args: argparse.Namespace) -> int:
    print(json.dumps({"schema_version": host.schema_version()}))
    return 0


def cmd_plugins_list(settings: Any, args: argparse.Namespace) -> int:
    plugins = load_plugins(settings.disable_plugins)
    rows = [
        {"name": p.name, "version": p.version, "origin": p.origin, "module": p.module, "hooks": p.hooks}
        for p in plugins.describe()
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:
            print(f"{row['name']:<22} {row['version']:<10} {row['origin']:<12} {', '.join(row['hooks'])}")
    return 0


def build_parser(settings: Any) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="svc-display", description="the svc-display signage host")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="serve the REST API, collectors and the display").set_defaults(handler=cmd_serve)
    sub.add_parser("migrate", help="apply pending migrations, print the schema version").set_defaults(
        handler=cmd_migrate)
    plugins = sub.add_parser("plugins", help="plugin information").add_subparsers(dest="plugins_command",
                                                                                 required=True)
    listing = plugins.add_parser("list", help="every registered plugin and what it provides")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=cmd_plugins_list, needs_host=False)
    try:
        load_plugins(settings.disable_plugins).pm.hook.register_commands(subparsers=sub)
    except PluginError as exc:
        log.error("%s", exc)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        settings = load_settings()
    except ConfigError as exc:
        print(f"svc-display: configuration error: {exc}", file=sys.stderr)
        return 2
    _configure_logging(settings.log_level)
    warn_deprecated(settings)
    try:
        parser = build_parser(settings)
        args = parser.parse_args(argv)
        if getattr(args, "needs_host", True) is False:
            return args.handler(settings, args)
        from svc_host.host import build_host

        host = build_host(settings, with_routes=args.command == "serve")
    except PluginError as exc:
        print(f"svc-display: startup failed: {exc}", file=sys.stderr)
        return 3
    if args.command == "serve":
        return args.handler(host, args)
    try:
        return args.handler(host, args)
    finally:
        host.close()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
