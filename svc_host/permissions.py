"""Every permission string and the role table, in one place (CONTRACT "Permissions").

Third-party plugins may add permissions through ``register_permissions``; builtins use
the constants below. ``admin`` holds every permission, including plugin ones.
"""
from __future__ import annotations

from hookspecs import Permission

ROLES = ("admin", "operator", "power_viewer", "viewer")

TELEMETRY_READ = "telemetry.read"
NAVIGATION_CONTROL = "navigation.control"
CONTENT_CATALOG_READ = "content.catalog_read"
CONTENT_MODERATE = "content.moderate"
INTERESTS_READ = "interests.read"
INTERESTS_WRITE = "interests.write"
SCREENS_WRITE = "screens.write"
TICKER_WRITE = "ticker.write"
OVERLAYS_WRITE = "overlays.write"
ALERTS_WRITE = "alerts.write"
SETTINGS_WRITE = "settings.write"
INTEGRATIONS_READ = "integrations.read"
INTEGRATIONS_WRITE = "integrations.write"
CURATOR_WRITE = "curator.write"
RUNTIME_SIGNALS_WRITE = "runtime.signals_write"
ADOPTION_ADMIN = "adoption.admin"
USERS_ADMIN = "users.admin"
DISPLAY_MAINTENANCE = "display.maintenance"

_VIEWERS = ("viewer", "power_viewer", "operator")
_POWER = ("power_viewer", "operator")
_OPERATOR = ("operator",)
_ADMIN_ONLY: tuple[str, ...] = ()

BUILTIN_PERMISSIONS: tuple[Permission, ...] = (
    Permission(TELEMETRY_READ, "read telemetry, media blobs and weather lookups", _VIEWERS),
    Permission(NAVIGATION_CONTROL, "move the program and watch the live preview", _POWER),
    Permission(CONTENT_CATALOG_READ, "read the content catalog (active rows only)", _POWER),
    Permission(INTERESTS_READ, "read interests", _POWER),
    Permission(INTERESTS_WRITE, "create, change and delete interests", _OPERATOR),
    Permission(SCREENS_WRITE, "create, change and delete screens", _OPERATOR),
    Permission(TICKER_WRITE, "create, change and delete ticker tapes", _OPERATOR),
    Permission(OVERLAYS_WRITE, "create, change and delete overlays", _OPERATOR),
    Permission(ALERTS_WRITE, "raise and dismiss alerts", _OPERATOR),
    Permission(SETTINGS_WRITE, "change display settings, themes and key-values", _OPERATOR),
    Permission(INTEGRATIONS_READ, "read integrations and their telemetry", _OPERATOR),
    Permission(INTEGRATIONS_WRITE, "configure integrations and their secrets", _OPERATOR),
    Permission(CURATOR_WRITE, "curator categories, configurations and manual entries", _OPERATOR),
    Permission(RUNTIME_SIGNALS_WRITE, "send plugin runtime signals", _OPERATOR),
    Permission(CONTENT_MODERATE, "suppress, restore and delete content", _ADMIN_ONLY),
    Permission(ADOPTION_ADMIN, "administer adopted clients and adoption settings", _ADMIN_ONLY),
    Permission(USERS_ADMIN, "administer users and their passwords", _ADMIN_ONLY),
    Permission(DISPLAY_MAINTENANCE, "backup, restore and upgrade", _ADMIN_ONLY),
)


class PermissionTable:
    """The role -> permissions table, built from the builtin list plus plugin contributions."""

    def __init__(self, permissions: list[Permission]):
        self.permissions = {p.name: p for p in permissions}
        self._by_role = {role: set() for role in ROLES}
        for permission in permissions:
            self._by_role["admin"].add(permission.name)
            for role in permission.roles:
                self._by_role[role].add(permission.name)

    def for_role(self, role: str) -> list[str]:
        return sorted(self._by_role.get(role, ()))

    def role_has(self, role: str, permission: str) -> bool:
        return permission in self._by_role.get(role, ())
