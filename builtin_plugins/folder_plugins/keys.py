"""Each folder plugin's own key: principal ``plugin:<id>`` with three permissions and one key-value.

A new key is made at every sidecar start and handed over in ``SVC_DISPLAY_API_KEY``; the
display keeps only its SHA-256 (in memory: a restart of the display or of the sidecar
replaces it, so nothing needs storing). It is not an adoption client: it never appears in
``/v1/adoption/clients`` and cannot be revoked there; stopping the sidecar revokes it.
"""
from __future__ import annotations

import secrets
import threading

from hookspecs.permissions import TELEMETRY_READ
from hookspecs.permissions import Principal
from svc_host.kit.security import same_digest, sha256_hex

KEY_PREFIX = "svcp_"
# Declared by the plugins whose routes they guard (runtime_signals, alerts, settings): a
# permission name is part of the contract, not of its owner's code, so it is named here.
RUNTIME_SIGNALS_WRITE = "runtime.signals_write"
ALERTS_WRITE = "alerts.write"
SETTINGS_WRITE = "settings.write"
PLUGIN_PERMISSIONS = frozenset({RUNTIME_SIGNALS_WRITE, ALERTS_WRITE, TELEMETRY_READ})


def marquee_key(plugin_id: str) -> str:
    """The one key-value a plugin's key may write: its ticker text."""
    return f"ticker.marquee.{plugin_id}"


def plugin_principal(plugin_id: str) -> Principal:
    return Principal(identifier=f"plugin:{plugin_id}", role="plugin", kind="plugin", subject_id=plugin_id,
                     permissions=PLUGIN_PERMISSIONS, fixed=True,
                     scopes={SETTINGS_WRITE: frozenset({marquee_key(plugin_id)})})


class PluginKeys:
    """The current key digest of each plugin; thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_digest: dict[str, str] = {}
        self._by_plugin: dict[str, str] = {}

    def issue(self, plugin_id: str) -> str:
        """A new key for ``plugin_id``; its previous key stops working. Returned once, never kept."""
        key = KEY_PREFIX + secrets.token_urlsafe(32)
        digest = sha256_hex(key)
        with self._lock:
            old = self._by_plugin.pop(plugin_id, None)
            if old is not None:
                self._by_digest.pop(old, None)
            self._by_plugin[plugin_id] = digest
            self._by_digest[digest] = plugin_id
        return key

    def revoke(self, plugin_id: str) -> None:
        with self._lock:
            digest = self._by_plugin.pop(plugin_id, None)
            if digest is not None:
                self._by_digest.pop(digest, None)

    def authenticate(self, token: str) -> Principal | None:
        if not token.startswith(KEY_PREFIX):
            return None
        digest = sha256_hex(token)
        with self._lock:
            plugin_id = self._by_digest.get(digest)
            stored = self._by_plugin.get(plugin_id) if plugin_id is not None else None
        if stored is None or not same_digest(stored, digest):
            return None
        return plugin_principal(plugin_id)
