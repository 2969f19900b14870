"""What a plugin may use of the host: the :class:`Host` every hook receives.

The host (``svc_host.host.Host``) satisfies this Protocol (``tests/host/test_contract.py``
checks it with ``isinstance``); plugins type against it, never against the host's class,
so anything not listed here is the host's own business and may change.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover  (types only: the contract imports nothing of the host)
    from pony.orm import Database


@runtime_checkable
class Clock(Protocol):
    """The host's clock (a test clock file can drive it): ``now_ms()`` is epoch milliseconds."""

    def now_ms(self) -> int: ...


@runtime_checkable
class HostSettings(Protocol):
    """The host's validated settings as a plugin reads them (``host.settings``, and what
    ``prepare_storage`` and ``describe_plugins`` receive; the host's ``svc_host.config.Settings``
    satisfies it): its data dir, the media dir and SQLite file in it, the external database
    (``database_url``, None on SQLite), the plugins ``SVC_DISPLAY_DISABLE_PLUGINS`` names, and a
    plugin's own values (``plugin_values(plugin_name)``)."""

    data_dir: Path
    database_url: str | None
    disable_plugins: frozenset[str]
    media_dir: Path  # these three are properties of the host's Settings
    sqlite_path: Path
    uses_external_database: bool

    def plugin_values(self, plugin: str) -> Any: ...


@runtime_checkable
class Host(Protocol):
    """The running host as plugins see it.

    - ``services``: shared services by typed key (:class:`hookspecs.services.ServiceRegistry`);
    - ``settings``: the host's validated settings (``data_dir``, ``media_dir``, ``http_port`` ...;
      a plugin's own values through ``settings.plugin_values(plugin_name)``);
    - ``db``: the Pony database, entities by name (only your own feature's: the boundary test);
    - ``blobs``: the media blob store; ``clock``: :class:`Clock`;
    - ``registries``: the validated contributions (types, permissions, content lists ...);
    - ``plugins``: the plugin manager (names, states) and ``hook``: pluggy's hook relay;
    - ``routes``/``operations``/``openapi``: what the HTTP app serves;
    - ``display_bus``: posts commands to the canvas's UI thread (None without a canvas);
    - ``instance_id``: the adoption HMAC secret (None when its file is missing);
    - ``schema_version()``, ``authenticate(token)``, ``request_exit(code)``.
    """

    services: Any  # a hookspecs.services.ServiceRegistry (services.py imports this module: no loop back)
    settings: HostSettings
    db: Database
    blobs: Any
    clock: Clock
    registries: Any
    plugins: Any
    routes: list[tuple[str, Any]]
    operations: dict[tuple[str, str], Any]
    display_bus: Any

    @property
    def hook(self) -> Any: ...

    @property
    def instance_id(self) -> str | None: ...

    def schema_version(self) -> int: ...
    def authenticate(self, token: str) -> Any: ...
    def request_exit(self, code: int) -> None: ...


__all__ = ["Clock", "Host", "HostSettings"]
