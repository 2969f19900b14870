"""Permissions several plugins guard routes with: the shared part of the vocabulary (CONTRACT "Permissions").

Every plugin declares the permissions its routes use from ``register_permissions``, as a
third-party plugin does, and the role table holds only what enabled plugins declared. A
permission one plugin uses is defined in that plugin; one that several plugins use is
defined here once, and each of them declares it (identical declarations merge; the same
name declared with other roles or another description stops the later plugin)::

    from hookspecs.permissions import INTERESTS_READ, INTERESTS_WRITE, declare

    @hookimpl
    def register_permissions():
        return declare(INTERESTS_READ, INTERESTS_WRITE)

Role groups: ``admin`` holds every declared permission without being named.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping

from hookspecs.types import Permission

VIEWERS: tuple[str, ...] = ("viewer", "power_viewer", "operator")
POWER_VIEWERS: tuple[str, ...] = ("power_viewer", "operator")
OPERATORS: tuple[str, ...] = ("operator",)
ADMIN_ONLY: tuple[str, ...] = ()

TELEMETRY_READ = "telemetry.read"
NAVIGATION_CONTROL = "navigation.control"
CONTENT_MODERATE = "content.moderate"
INTERESTS_READ = "interests.read"
INTERESTS_WRITE = "interests.write"
CURATOR_WRITE = "curator.write"
ADOPTION_ADMIN = "adoption.admin"
INTEGRATIONS_READ = "integrations.read"

SHARED: dict[str, Permission] = {p.name: p for p in (
    Permission(TELEMETRY_READ, "read telemetry, media blobs and weather lookups", VIEWERS),
    Permission(NAVIGATION_CONTROL, "move the program and watch the live preview", POWER_VIEWERS),
    Permission(CONTENT_MODERATE, "suppress, restore and delete content", ADMIN_ONLY),
    Permission(INTERESTS_READ, "read interests", POWER_VIEWERS),
    Permission(INTERESTS_WRITE, "create, change and delete interests", OPERATORS),
    Permission(CURATOR_WRITE, "curator categories, configurations and manual entries", OPERATORS),
    Permission(ADOPTION_ADMIN, "administer adopted clients and adoption settings", ADMIN_ONLY),
    Permission(INTEGRATIONS_READ, "read integrations and their telemetry", OPERATORS),
)}
"""The shared permissions by name."""


def declare(*names: str) -> list[Permission]:
    """The shared permissions ``names``, for a plugin's ``register_permissions``."""
    return [SHARED[name] for name in names]


@dataclass(frozen=True)
class Principal:
    """An authenticated caller. ``kind`` is ``api_key``, ``session`` or ``plugin``.

    The host fills ``permissions`` from the role table, unless ``fixed`` is set: then the
    authenticator chose them (a folder plugin's own key holds three permissions whatever
    its role) and the host keeps those it knows. ``scopes`` maps a permission the caller
    holds only for some resources to those resource names (the plugin's key writes only the
    key-value ``ticker.marquee.<id>``); an operation marked ``scoped`` lets such a caller
    through and its responder checks :meth:`may`. Every other operation sees only
    ``permissions``.
    """

    identifier: str
    role: str
    kind: str = "api_key"
    subject_id: str = ""
    permissions: frozenset[str] = field(default_factory=frozenset)
    fixed: bool = False
    scopes: Mapping[str, frozenset[str]] = field(default_factory=dict, compare=False)

    def has(self, permission: str) -> bool:
        return permission in self.permissions

    def has_scoped(self, permission: str) -> bool:
        """Holds ``permission`` for at least some resources (fully, or through ``scopes``)."""
        return permission in self.permissions or bool(self.scopes.get(permission))

    def may(self, permission: str, resource: object) -> bool:
        """Holds ``permission`` for ``resource``: fully, or because ``scopes`` names it."""
        return permission in self.permissions or resource in self.scopes.get(permission, ())
