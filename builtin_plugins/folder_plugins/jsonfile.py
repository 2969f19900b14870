"""Reading a plugin's JSON files (manifest, templates): bounded in size, checked with ``jsonschema``,
each problem said in one line."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema


def read_json(path: Path, max_bytes: int) -> Any:
    """The JSON document in ``path``; ``ValueError`` with the reason (``cannot be read: ...``,
    ``is larger than N KiB``, ``is not JSON: ...``) to follow the file's name. Never reads
    more than ``max_bytes + 1`` bytes."""
    try:
        with path.open("rb") as handle:
            raw = handle.read(max_bytes + 1)
    except OSError as exc:
        raise ValueError(f"cannot be read: {exc.strerror or exc}") from None
    if len(raw) > max_bytes:
        raise ValueError(f"is larger than {max_bytes // 1024} KiB")
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ValueError(f"is not JSON: {exc}") from None


def first_error(validator: jsonschema.protocols.Validator, instance: Any) -> jsonschema.ValidationError | None:
    """The most relevant of ``instance``'s errors (``jsonschema``'s best match, chosen in a stable order)."""
    errors = sorted(validator.iter_errors(instance), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    return jsonschema.exceptions.best_match(errors) if errors else None


def where(error: jsonschema.ValidationError) -> str:
    """The JSON pointer of the value ``error`` is about (``/`` for the document)."""
    return "/" + "/".join(str(part) for part in error.absolute_path)


def error_text(error: jsonschema.ValidationError) -> str:
    """``/pointer: message``, or only the message when it is about the whole document."""
    return f"{where(error)}: {error.message}" if where(error) != "/" else error.message
