"""``svc-display``: serve, migrate, plugins list, plus commands that plugins add."""
from __future__ import annotations

import argparse
import faulthandler
import json
import logging
import os
import shlex
import signal
import sys
from pathlib import Path
from typing import Any, Sequence

from svc_host.config import (
    DISPLAY_PREFIXES,
    ConfigError,
    declared_settings,
    environment_help,
    known_variables,
    load_settings,
    port_in_use,
    read_plugin_settings,
    unknown_variables,
    warn_deprecated,
)
from svc_host.malloc import limit_malloc_arenas
from svc_host.live_state import read_live_state
from svc_host.plugins import PluginError, PluginSkipped, load_plugins

log = logging.getLogger("svc_host")


def _configure_logging(level: str) -> None:
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def cmd_serve(host: Any, args: argparse.Namespace) -> int:
    from svc_host import display
    from svc_host.http.app import create_app
    from svc_host.server import serve

    app = create_app(host)
    # ``kill -USR1 <pid>``: every thread's stack to the log (stderr), and the display goes on:
    # where a display that does not answer is stuck (the test kit asks for it when a server it
    # starts does not answer in time). Written by the interpreter itself, so a held lock or a
    # blocked event loop cannot keep it from being said.
    faulthandler.register(signal.SIGUSR1, all_threads=True, chain=False)
    # Kivy needs the main thread: the runtime serves HTTP on a background thread when a
    # canvas runs, or right here when headless.
    display.run(host, lambda: serve(host, app))
    return host.exit_code


def cmd_migrate(host: Any, args: argparse.Namespace) -> int:
    print(json.dumps({"schema_version": host.schema_version()}))
    return 0


def cmd_plugins_list(settings: Any, args: argparse.Namespace) -> int:
    """Every plugin, entry point or folder, with its state: the running server's (the state file it
    keeps in the data dir), else what this process loads (state ``stopped``)."""
    live = read_live_state(settings.data_dir)
    if live is not None:
        rows = live["items"]
        print(f"svc-display: the server running on {settings.data_dir} (pid {live['pid']}) reports:",
              file=sys.stderr)
    else:
        plugins = load_plugins(settings.disable_plugins)
        rows = plugins.states(loaded="stopped")
        for name in plugins.implementers("describe_plugins"):
            try:
                described = plugins.call_each("describe_plugins", only=[name], settings=settings)
            except (PluginError, PluginSkipped) as exc:
                log.error("%s", exc)
                continue
            rows += [dict(row) for _name, items in described for row in items]
        print(f"svc-display: no server runs on {settings.data_dir}: 'stopped' is what a start would load",
              file=sys.stderr)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"{'PLUGIN':<22} {'VERSION':<10} {'ORIGIN':<12} {'STATE':<11} HOOKS / SIDECAR")
    for row in rows:
        sidecar = row.get("sidecar") or {}
        extra = ", ".join(row.get("hooks") or ())
        if sidecar:
            extra = (f"pid {sidecar.get('pid') or '-'} port {sidecar.get('port') or '-'} "
                     f"restarts {sidecar.get('restart_count', 0)}")
        reason = f"  ({row['reason']})" if row.get("reason") else ""
        print(f"{row['id']:<22} {row.get('version') or '-':<10} {row.get('origin', ''):<12} "
              f"{row.get('state', ''):<11} {extra}{reason}")
    return 0


def cmd_plugin_new(settings: Any, args: argparse.Namespace) -> int:
    from svc_host.scaffold import ScaffoldError, check_name, new_plugin, taken_names

    target = Path(args.dir or f"svc-display-{args.name}")
    try:
        check_name(args.name)  # the spelling first: that needs no plugin loaded
        files = new_plugin(args.name, target, taken_names(settings.disable_plugins))
    except (ScaffoldError, OSError) as exc:
        print(f"svc-display: {exc}", file=sys.stderr)
        return 2
    for path in files:
        print(path)
    # svc-display is on no package index: the plugin goes into the environment that holds this
    # svc-display (its dependency is then met), with that environment's own interpreter
    python = shlex.quote(sys.executable)
    print(f"\nplugin {args.name!r} written to {target}/ (docs/plugins.md explains each part); next, install it "
          f"into the environment of this svc-display and run its tests:\n"
          f"  {python} -m pip install -e {shlex.quote(str(target))}\n"
          f"  cd {shlex.quote(str(target))} && {python} -m pytest\n"
          f"(another environment first needs svc-display itself: pip install /path/to/svc-display-checkout, "
          f"or a wheel built there with 'pip wheel --no-deps -w dist .')", file=sys.stderr)
    return 0


def _thumbnail_px(value: str) -> int:
    if not value.isdigit() or not 160 <= int(value) <= 4096:
        raise argparse.ArgumentTypeError("must be a number of pixels, 160-4096")
    return int(value)


def cmd_gallery(settings: Any, args: argparse.Namespace) -> int:
    """Every screen and overlay type in every builtin theme as PNG files, with an index page; with
    ``--scenes``, every slide type under the café composition at each size."""
    from svc_host.display import gallery, scenes
    from svc_host.display.runtime import CanvasUnavailable, parse_size

    sizes = [parse_size(size) for size in args.size or ()]
    if None in sizes:
        bad = next(size for size in args.size if parse_size(size) is None)
        print(f"svc-display: --size must be WIDTHxHEIGHT (16-8192 each), not {bad!r}", file=sys.stderr)
        return 2
    plugins_dir = Path(args.plugins_dir) if args.plugins_dir else scenes.default_plugins_dir()
    if plugins_dir is not None and not plugins_dir.is_dir():
        print(f"svc-display: --plugins-dir {str(plugins_dir)!r} is not a folder", file=sys.stderr)
        return 2
    if args.scenes:
        manifest = scenes.run(Path(args.dir), sizes or None, themes=args.theme or None,
                              types=set(args.type or ()) or None, alerts=not args.no_alert, plugins_dir=plugins_dir)
        for error in manifest["errors"]:
            print(f"not drawn: {error}", file=sys.stderr)
        for scene in manifest["scenes"]:
            if not scene["file"]:
                print(f"not drawn: {scene['type_id']} in {scene['theme']} at {scene['size']}: {scene['error']}",
                      file=sys.stderr)
        drawn = [s for s in manifest["scenes"] if s["file"]]
        if args.thumbnails:
            scenes.thumbnails(Path(args.dir), manifest, args.thumbnails)
            print(f"{len(drawn)} scenes (JPEG, at most {args.thumbnails} px) and index.html written to {args.dir}")
            return 0 if drawn else 1
        print(f"{len(drawn)} scenes, index.html and scenes.json written to {args.dir}")
        return 0 if drawn else 1
    try:
        pictures = gallery.run(Path(args.dir), sizes[0] if sizes else gallery.DEFAULT_SIZE, themes=args.theme or None,
                               types=set(args.type or ()) or None, plugins_dir=plugins_dir)
    except CanvasUnavailable as exc:
        print(f"svc-display: the gallery needs Kivy offscreen: {exc}", file=sys.stderr)
        return 3
    drawn = [p for p in pictures if p.file]
    for picture in pictures:
        if not picture.file:
            print(f"not drawn: {picture.kind} {picture.type_id} in {picture.theme}: {picture.error}", file=sys.stderr)
    print(f"{len(drawn)} pictures and index.html written to {args.dir}")
    return 0 if drawn else 1


def cmd_service_unit(settings: Any, args: argparse.Namespace) -> int:
    from svc_host.service_unit import render

    print(render(args.exec_path, args.user, args.session), end="")
    return 0


def build_parser(settings: Any) -> argparse.ArgumentParser:
    from svc_host import __version__

    parser = argparse.ArgumentParser(prog="svc-display", description="the svc-display signage host")
    parser.add_argument("--version", action="version", version=f"svc-display {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    try:
        loaded = parser.plugins = load_plugins(settings.disable_plugins)
    except PluginError as exc:  # --help still works; build_host reports it again and stops
        log.error("%s", exc)
        loaded = parser.plugins = None
    try:
        declarations = declared_settings(loaded) if loaded is not None else []
    except (ConfigError, PluginError, PluginSkipped) as exc:  # main() reports it and stops
        log.error("%s", exc)
        declarations = []
    parser.declarations = declarations
    sub.add_parser("serve", help="serve the REST API, collectors and the display",
                   description="Serve the REST API, the collectors and the display until SIGTERM.",
                   epilog=environment_help(declarations=declarations),
                   formatter_class=argparse.RawDescriptionHelpFormatter).set_defaults(handler=cmd_serve)
    sub.add_parser("migrate", help="apply pending migrations, print the schema version").set_defaults(
        handler=cmd_migrate)
    plugins = sub.add_parser("plugins", help="plugin information").add_subparsers(dest="plugins_command",
                                                                                 required=True)
    listing = plugins.add_parser(
        "list", help="every plugin (entry point or folder) with its state",
        description="Every plugin, entry point or folder, with its state: the running server's when one runs "
                    "on the data dir, else 'stopped'.")
    listing.add_argument("--json", action="store_true", help="print JSON")
    listing.set_defaults(handler=cmd_plugins_list, needs_host=False)
    gallery = sub.add_parser(
        "gallery", help="draw every screen and overlay type in every builtin theme to PNG files",
        description="Draw every registered screen type, and every overlay type over a sample slide, with its "
                    "example config and sample content, in every builtin theme, offscreen, to PNG files in DIR "
                    "with index.html and gallery.json. With --scenes: every slide type under the café composition "
                    "(clock, QR code, birthday confetti, ticker, and once more with a warning alert) at 1920x1080, "
                    "1280x720, 1080x1920 and 3840x2160, with index.html and scenes.json. Uses a throwaway data dir: "
                    "your database is not touched.")
    gallery.add_argument("dir", metavar="DIR", help="the folder to write (created)")
    gallery.add_argument("--size", action="append",
                         help="WIDTHxHEIGHT of each picture (default 1920x1080; with --scenes repeatable, "
                              "default the four scene sizes)")
    gallery.add_argument("--theme", action="append", help="only this builtin theme (repeatable)")
    gallery.add_argument("--type", action="append", help="only this type id (repeatable)")
    gallery.add_argument("--thumbnails", type=_thumbnail_px, metavar="PX",
                         help="with --scenes: JPEG pictures at most PX on their long side, no scenes.json "
                              "(small enough to commit: docs/gallery/scenes/)")
    gallery.add_argument("--scenes", action="store_true",
                         help="draw composed scenes: every slide type with every layer together")
    gallery.add_argument("--no-alert", action="store_true", help="with --scenes: no second scene with the alert")
    gallery.add_argument("--plugins-dir",
                         help="folder plugins to install (default: the checkout's plugins/ when run from one)")
    gallery.set_defaults(handler=cmd_gallery, needs_host=False)
    service = sub.add_parser("service", help="run the display as a service").add_subparsers(
        dest="service_command", required=True)
    unit = service.add_parser(
        "unit", help="print the systemd unit of the display (docs/deployment.md)",
        description="Print a systemd unit for the display: Type=notify (READY=1 once it serves), "
                    "WatchdogSec=30 (pings only while the canvas draws: a frozen screen is restarted), "
                    "Restart=always (a restore's exit status 75 starts it again).")
    unit.add_argument("--exec", dest="exec_path", help="the svc-display executable (default: this one)")
    unit.add_argument("--user", help="User= of a system unit (default: svc-display)")
    unit.add_argument("--session", action="store_true",
                      help="a user unit for the kiosk user's graphical session (systemctl --user)")
    unit.set_defaults(handler=cmd_service_unit, needs_host=False)
    plugin = sub.add_parser("plugin", help="write a new plugin")
    new = plugin.add_subparsers(dest="plugin_command", required=True).add_parser(
        "new", help="write a plugin distribution (a renamed copy of examples/hello-plugin)",
        description="Write a new plugin distribution: a route, a collector with its table and a migration, "
                    "ticker, screen and overlay types, and its tests (docs/plugins.md).")
    new.add_argument("name", metavar="NAME", help="one lowercase word: entry point, type ids, package prefix")
    new.add_argument("--dir", help="the folder to write (new or empty; default ./svc-display-NAME)")
    new.set_defaults(handler=cmd_plugin_new, needs_host=False)
    if loaded is None:
        return parser
    for name in loaded.implementers("register_commands"):
        try:
            loaded.call_each("register_commands", only=[name], subparsers=sub)
        except PluginSkipped:  # logged with its name; the other commands still work
            pass
        except PluginError as exc:
            log.error("%s", exc)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    limit_malloc_arenas()  # before any thread: a thread keeps the arena it got (svc_host/malloc.py)
    # Everything this process creates (database, blobs, secrets, certificates, plugin files)
    # is for this user only: 0600 files, 0700 folders.
    os.umask(0o077)
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
        if parser.plugins is not None:  # every plugin's declared variables, read once, before anything runs
            settings = read_plugin_settings(settings, parser.plugins)
        for line in unknown_variables(os.environ, known_variables(parser.declarations), DISPLAY_PREFIXES):
            log.warning("%s", line)
        if args.command == "serve":  # before a certificate, the database or a plugin starts
            busy = port_in_use(settings.http_bind_ip, settings.http_port, "SVC_DISPLAY_HTTP_PORT")
            if busy:  # 3, as when uvicorn finds the port taken at its bind: one status for "port taken"
                print(f"svc-display: {busy}", file=sys.stderr)
                return 3
        if getattr(args, "needs_host", True) is False:
            return args.handler(settings, args)
        if getattr(args, "needs_store", False) and not settings.database_url and not settings.sqlite_path.exists():
            # A new empty database here would issue keys no running server knows.
            print(f"svc-display: no database in the data dir {settings.data_dir} (SVC_DISPLAY_DATA_DIR): "
                  "point SVC_DISPLAY_DATA_DIR at the data dir of the server you mean, or run "
                  "'svc-display serve' once to create it", file=sys.stderr)
            return 2
        from svc_host.host import build_host

        host = build_host(settings, with_routes=args.command == "serve", plugins=parser.plugins)
    except ConfigError as exc:  # the data dir, a plugin name in SVC_DISPLAY_DISABLE_PLUGINS, a plugin's variable
        print(f"svc-display: configuration error: {exc}", file=sys.stderr)
        return 2
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
