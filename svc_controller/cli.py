"""``svc-controller``: ``serve`` the BFF, ``users create`` for sign-in, ``migrate``."""
from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import Sequence

from svc_controller.config import ENVIRONMENT, ConfigError, ControllerSettings, load_controller_settings
from svc_host.config import known_variables, unknown_variables

log = logging.getLogger("svc_controller")


def cmd_serve(settings: ControllerSettings, args: argparse.Namespace) -> int:
    from svc_controller.app import ControllerDispatcher, build_controller
    from svc_controller.backups import Scheduler
    from svc_controller.fleet import Poller
    from svc_controller.webhook import Webhook
    from svc_host.config import port_in_use
    from svc_host.server import connection_limits, forget_port, listen_on_any_port, run_uvicorn
    from svc_host.tls import ensure_certificate

    # before a certificate or the database
    busy = settings.port and port_in_use(settings.bind, settings.port, "SVC_CONTROLLER_PORT")
    if busy:
        print(f"svc-controller: {busy}", file=sys.stderr)
        return 2
    ctl = build_controller(settings)  # (makes the data dir, the owner's only)
    sock, port = None, settings.port
    try:
        if settings.port == 0:  # the OS chooses; <data dir>/http-port names it (the test kit's way)
            sock = listen_on_any_port(settings.bind, settings.data_dir)
            port = sock.getsockname()[1]
        dispatcher = ControllerDispatcher(ctl)
        ctl.scheduler = Scheduler(ctl.backups, settings.scheduler_tick_ms, ctl.clock.now_ms)
        ctl.scheduler.start()
        webhook = Webhook(settings.webhook_url, settings.webhook_secret, settings.alert_after_seconds,
                          ctl.clock.now_ms) if settings.webhook_url else None
        ctl.poller = Poller(ctl.fleet, settings.fleet_poll_seconds, settings.fleet_concurrency, webhook)
        ctl.poller.start()
        tls_files = ensure_certificate(settings, name="controller") if settings.tls else None
        log.info("auth %s; backups in %s; zone %s", "on" if settings.auth_enabled else "off",
                 settings.backups_dir, settings.timezone)
        run_uvicorn(dispatcher, settings.bind, port, tls_files, {},
                    header_timeout=settings.http_header_timeout_seconds, limits=connection_limits(settings),
                    sock=sock)
    finally:
        ctl.close()
        forget_port(settings.data_dir, sock, port)
        log.info("stopped")
    return 0


def cmd_migrate(settings: ControllerSettings, args: argparse.Namespace) -> int:
    from svc_controller.app import build_controller

    ctl = build_controller(settings)  # (makes the data dir, the owner's only)
    try:
        print(json.dumps({"schema_version": ctl.schema_version}))
    finally:
        ctl.close()
    return 0


def cmd_users_create(settings: ControllerSettings, args: argparse.Namespace) -> int:
    from svc_host.passwords import read_password
    from svc_host.passwords import PasswordError
    from svc_controller.app import build_controller
    from svc_controller.auth import UserError, create_user

    ctl = build_controller(settings)  # (makes the data dir, the owner's only)
    try:
        password = read_password()
        if password.endswith("\r"):
            password = password[:-1]
        out = create_user(ctl.db, args.username, password, ctl.clock.now_ms())
    except (UserError, PasswordError) as exc:
        print(f"svc-controller: {exc}", file=sys.stderr)
        return 2
    finally:
        ctl.close()
    print(json.dumps(out))
    return 0


def build_parser() -> argparse.ArgumentParser:
    from svc_host import __version__
    from svc_host.config import environment_help

    parser = argparse.ArgumentParser(prog="svc-controller", description="the svc-display controller (BFF)")
    parser.add_argument("--version", action="version", version=f"svc-controller {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("serve", help="serve /bff/v1 and the controller web app",
                   description="Serve /bff/v1 and the controller web app until SIGTERM.",
                   epilog=environment_help(ENVIRONMENT, ControllerSettings, {"data_dir": Path("data").absolute(),
                                                                              "timezone": "the machine's zone"}),
                   formatter_class=argparse.RawDescriptionHelpFormatter).set_defaults(handler=cmd_serve)
    sub.add_parser("migrate", help="apply pending migrations, print the schema version").set_defaults(
        handler=cmd_migrate)
    users = sub.add_parser("users", help="users who sign in (SVC_CONTROLLER_AUTH_ENABLED=1)").add_subparsers(
        dest="users_command", required=True)
    create = users.add_parser("create", help="create a user; the password is read from stdin or a prompt")
    create.add_argument("--username", required=True)
    create.set_defaults(handler=cmd_users_create)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Everything this process creates (database, snapshots, secrets, certificates) is for this
    # user only: 0600 files, 0700 folders (as the display, svc_host/cli.py).
    os.umask(0o077)
    args = build_parser().parse_args(argv)
    try:
        settings = load_controller_settings()
    except ConfigError as exc:
        print(f"svc-controller: configuration error: {exc}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs every request URL at INFO: proxied query strings are the callers' business
    logging.getLogger("httpx").setLevel(max(logging.WARNING, logging.getLevelName(settings.log_level)))
    for line in unknown_variables(os.environ, known_variables(table=ENVIRONMENT), ("SVC_CONTROLLER_",),
                                  "svc-controller"):
        log.warning("%s", line)
    return args.handler(settings, args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
