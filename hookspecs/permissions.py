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
