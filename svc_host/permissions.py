"""The roles and the role -> permissions table (CONTRACT "Permissions").

The host knows no permission by name: every plugin, builtin or third-party, declares the
permissions its routes use through ``register_permissions`` (shared ones are defined once
in :mod:`hookspecs.permissions`), and the table is built from those declarations at
startup. ``admin`` holds every declared permission.
"""
from __future__ import annotations

from typing import Iterable

from hookspecs import Permission

ROLES = ("admin", "operator", "power_viewer", "viewer")


class PermissionTable:
    """The role -> permissions table, built from the plugins' declarations."""

    def __init__(self, permissions: Iterable[Permission]):
        permissions = list(permissions)
        self.permissions = {p.name: p for p in permissions}
        self._by_role: dict[str, set[str]] = {role: set() for role in ROLES}
        for permission in permissions:
            self._by_role["admin"].add(permission.name)
            for role in permission.roles:
                self._by_role[role].add(permission.name)

    def for_role(self, role: str) -> list[str]:
        return sorted(self._by_role.get(role, ()))

    def role_has(self, role: str, permission: str) -> bool:
        return permission in self._by_role.get(role, ())
