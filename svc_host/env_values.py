"""The parsing rules of environment values, shared by the display (:mod:`svc_host.config`) and the
controller (:mod:`svc_controller.config`): an empty value is unset, a bad one raises
:class:`ConfigError` whose message is one line naming the variable and what was expected."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping
from urllib.parse import urlparse

LOG_LEVELS = ("CRITICAL", "ERROR", "WARNING", "INFO", "DEBUG")


class ConfigError(ValueError):
    """One invalid environment value; ``str()`` is the one-line message."""

    def __init__(self, variable: str, expected: str, value: str | None = None, plugin: str | None = None):
        shown = "" if value is None else f" (got {value!r})"
        owner = "" if plugin is None else f" [declared by plugin {plugin!r}]"
        super().__init__(f"{variable}: expected {expected}{shown}{owner}")
        self.variable = variable
        self.plugin = plugin


def env_text(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name)
    if value is None or value.strip() == "":
        return None
    return value.strip()


def env_bool(env: Mapping[str, str], name: str, default: bool) -> bool:
    value = env_text(env, name)
    if value is None:
        return default
    lowered = value.lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise ConfigError(name, "1 or 0", value)


def env_int(env: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    return env_number(env, name, default, low, high, int)


def env_number(env: Mapping[str, str], name: str, default: Any, low: float, high: float, kind: type = int) -> Any:
    """``kind`` (``int`` or ``float``) within ``low``..``high``, or ``default`` when unset."""
    value = env_text(env, name)
    if value is None:
        return default
    expected = f"{'an integer' if kind is int else 'a number'} from {low} to {high}"
    try:
        number = kind(value)
    except ValueError:
        raise ConfigError(name, expected, value) from None
    if not low <= number <= high:
        raise ConfigError(name, expected, value)
    return number


def env_path(env: Mapping[str, str], name: str) -> Path | None:
    """The path in ``name``, absolute: a relative one is the working directory's at start, as a
    shell user means it (SQLite through Pony would resolve a relative file from Pony's module)."""
    value = env_text(env, name)
    return Path(value).expanduser().absolute() if value else None


def env_url(env: Mapping[str, str], name: str, schemes: tuple[str, ...]) -> str | None:
    value = env_text(env, name)
    if value is None:
        return None
    parsed = urlparse(value)
    if parsed.scheme not in schemes or not parsed.netloc:
        raise ConfigError(name, f"a {' or '.join(s + '://' for s in schemes)} URL", value)
    return value


def env_items(env: Mapping[str, str], name: str) -> list[str]:
    """A comma-separated list, each item stripped, empty ones dropped."""
    return [part.strip() for part in (env_text(env, name) or "").split(",") if part.strip()]


def parse_size(value: str | None) -> tuple[int, int] | None:
    """``"1280x720"`` -> ``(1280, 720)``, 16 to 8192 each; ``None`` for empty or malformed values."""
    if not value:
        return None
    width, cross, height = value.strip().lower().partition("x")
    if not (cross and width.isdigit() and height.isdigit()):
        return None
    size = int(width), int(height)
    return size if all(16 <= side <= 8192 for side in size) else None


def env_window_size(env: Mapping[str, str], name: str) -> str | None:
    """``WIDTHxHEIGHT``, 16 to 8192 each (:func:`parse_size`; the canvas's window)."""
    value = env_text(env, name)
    if value is None:
        return None
    size = parse_size(value)
    if size is None:
        raise ConfigError(name, "WIDTHxHEIGHT, 16 to 8192 each", value)
    return f"{size[0]}x{size[1]}"


def env_log_level(env: Mapping[str, str], name: str) -> str:
    level = (env_text(env, name) or "INFO").upper()
    if level not in LOG_LEVELS:
        raise ConfigError(name, "one of " + ", ".join(LOG_LEVELS), level)
    return level


def env_tls_pair(env: Mapping[str, str], cert_name: str, key_name: str) -> tuple[Path | None, Path | None]:
    """Your own certificate and key (PEM): both or neither."""
    cert, key = env_path(env, cert_name), env_path(env, key_name)
    if bool(cert) != bool(key):
        raise ConfigError(key_name if cert else cert_name, "to be set together with its certificate/key counterpart")
    return cert, key


def checked_origin(name: str, value: str) -> str:
    parsed = urlparse(value)
    if parsed.scheme not in ("http", "https") or not parsed.hostname or "*" in value:
        raise ConfigError(name, "comma-separated exact http(s) origins without wildcards", value)
    if parsed.path not in ("", "/") or parsed.query or parsed.fragment:
        raise ConfigError(name, "origins without a path", value)
    return f"{parsed.scheme}://{parsed.netloc.lower()}"
