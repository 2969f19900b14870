"""The active view (``GET /v1/curator/active``): which configurations apply now, and what shows.

Semantics (docs/content.md has the long form):

1. A configuration *matches* when it is enabled and every one of its rules holds (a
   rule's ``negate`` inverts it; a configuration without rules always matches).
2. The *foundation* is the matching ``exclusive`` configuration with the lowest
   ``(sort_order, id)``; when one exists it applies alone. Otherwise the foundation is
   the matching ``base`` configuration with the lowest ``(sort_order, id)`` (or none), and
   every matching ``enhancement`` applies after it in ``(sort_order, id)`` order.
3. Members, per kind (screens, tickers, overlays): the list starts as every enabled row
   of that kind, unless the foundation lists at least one ``add`` for the kind, in which
   case it starts empty. Then the foundation's ops, then each enhancement's ops, apply in
   their listed order: ``add`` appends an id not yet present, ``remove`` drops it. Ids
   that name no row, or a disabled one, are left out of the result.
4. ``program_controls`` start as ``{screens_enabled: true, ticker_enabled: true}``; each
   applied configuration with a non-null value overrides it, later ones win. Theme,
   ticker and viewport overrides combine the same way (objects merge key by key).
"""
from __future__ import annotations

import logging
from typing import Any

from hookspecs.services import CURATOR_RUNTIME, OVERLAYS, SCREENS, TICKER, service
from svc_host.kit.services import display_zone
from builtin_plugins.curator.configurations import KINDS, configuration_json, sorted_rules
from builtin_plugins.curator.predicates import EvaluationState, evaluation_state

log = logging.getLogger(__name__)

# member kind -> the service of the feature that owns its rows, and the row's label field
MEMBER_SERVICES = {"screens": (SCREENS, "name"), "tickers": (TICKER, "name"), "overlays": (OVERLAYS, "label")}


def rule_holds(host: Any, rule: Any, state: EvaluationState) -> bool:
    predicate = host.registries.curator_predicates.get(rule.predicate)
    if predicate is None or predicate.evaluate is None:
        result = False
    else:
        try:
            result = bool(predicate.evaluate(state, rule.params or {}))
        except Exception:  # a plugin predicate that fails counts as not holding
            log.exception("curator predicate %r failed", rule.predicate)
            result = False
    return result != rule.negate


def matches(host: Any, configuration: Any, state: EvaluationState) -> bool:
    return configuration.enabled and all(rule_holds(host, rule, state) for rule in sorted_rules(configuration))


def _rows(host: Any, kind: str) -> tuple[list[str], dict[str, str]]:
    """(enabled ids in display order, id -> label) for a member kind, from its owner's service;
    empty when the owner is not installed."""
    key, label_field = MEMBER_SERVICES[kind]
    owner = service(host, key)
    rows = owner.enabled() if owner is not None else []
    return [r["id"] for r in rows], {r["id"]: (r.get(label_field) or r["id"]) for r in rows}


def effective_members(host: Any, applied: list[Any]) -> dict[str, list[dict]]:
    result = {}
    foundation = applied[0] if applied and applied[0].layer in ("exclusive", "base") else None
    for kind in KINDS:
        enabled, labels = _rows(host, kind)
        ops_by_config = [
            [m for m in sorted(c.members, key=lambda m: m.position) if m.kind == kind] for c in applied
        ]
        starts_empty = foundation is not None and any(m.op == "add" for m in ops_by_config[0])
        current = [] if starts_empty else list(enabled)
        for ops in ops_by_config:
            for member in ops:
                if member.op == "add" and member.member_id not in current:
                    current.append(member.member_id)
                elif member.op == "remove" and member.member_id in current:
                    current.remove(member.member_id)
        result[kind] = [{"id": i, "label": labels[i]} for i in current if i in labels]
    return result


def _merge(applied: list[Any]) -> tuple[dict, dict]:
    controls = {"screens_enabled": True, "ticker_enabled": True}
    overrides: dict[str, Any] = {"theme_id": None, "ticker_overrides": {}, "viewport_overrides": {}}
    for configuration in applied:
        for name in controls:
            value = getattr(configuration, name)
            if value is not None:
                controls[name] = value
        if configuration.theme_id:
            overrides["theme_id"] = configuration.theme_id
        for name in ("ticker_overrides", "viewport_overrides"):
            overrides[name].update(getattr(configuration, name) or {})
    return controls, overrides


def active_view(host: Any) -> dict:
    """The active view at ``host.clock`` now (needs a db_session)."""
    now_ms = host.clock.now_ms()
    zone = display_zone(host)
    runtime_state = host.services[CURATOR_RUNTIME]
    signals = runtime_state.signals()
    state = evaluation_state(now_ms, zone, runtime_state.snapshot(host, signals), signals)
    configurations = sorted(host.db.CuratorConfiguration.select(), key=lambda c: (c.sort_order, c.id))
    matching = [c for c in configurations if matches(host, c, state)]
    exclusive = [c for c in matching if c.layer == "exclusive"][:1]
    if exclusive:
        base, enhancements = [], []
    else:
        base = [c for c in matching if c.layer == "base"][:1]
        enhancements = [c for c in matching if c.layer == "enhancement"]
    applied = exclusive + base + enhancements
    controls, overrides = _merge(applied)
    return {
        "evaluated_at_ms": now_ms,
        "timezone": zone.key,
        "active_configurations": {
            "exclusive": [configuration_json(c) for c in exclusive],
            "base": [configuration_json(c) for c in base],
            "enhancements": [configuration_json(c) for c in enhancements],
        },
        "matching_configuration_ids": [c.id for c in matching],
        "program_controls": controls,
        "overrides": overrides,
        "effective_members": effective_members(host, applied),
    }
