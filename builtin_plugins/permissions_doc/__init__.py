"""``svc-display permissions doc``: the permission table generated from the route registry."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from hookspecs import hookimpl
from builtin_plugins.permissions_doc.generator import render


def _doc(host: Any, args: Any) -> int:
    text = render(host, include_third_party=args.all_plugins)
    if args.check:
        current = Path(args.check).read_text() if Path(args.check).exists() else ""
        if current != text:
            print(f"svc-display: {args.check} is out of date; regenerate it with "
                  f"`svc-display permissions doc --output {args.check}`", file=sys.stderr)
            return 1
        return 0
    if args.output:
        Path(args.output).write_text(text)
    else:
        sys.stdout.write(text)
    return 0


@hookimpl
def register_commands(subparsers: Any) -> None:
    commands = subparsers.add_parser("permissions", help="the permission table").add_subparsers(
        dest="permissions_command", required=True)
    doc = commands.add_parser("doc", help="print docs/permissions.md generated from the route registry")
    doc.add_argument("--output", help="write to this file instead of stdout")
    doc.add_argument("--check", metavar="FILE", help="exit 1 when FILE differs from what would be generated")
    doc.add_argument("--all-plugins", action="store_true", help="include third-party plugins' routes")
    doc.set_defaults(handler=_doc)
