"""Curator configurations: layers, schedule rules and member ops (spec 2.10, 4.11).

Layers: ``exclusive``, ``base``, ``enhancement``. See ``active.py`` for how they combine.
"""
from __future__ import annotations

import uuid
from typing import Any

from marshmallow import Schema, fields, validate, validates_schema
from pony import orm

from svc_host.kit.rest import (CLIENT_ID, ApiError, StorableJsonObject, Text, client_id, conflict, not_blank,
                               not_found, require_some, stored_row)
from builtin_plugins.curator.predicates import PARAM_CHECKS, ParamsError
from hookspecs import AUTHENTICATED, Operation, Route
from hookspecs.permissions import CURATOR_WRITE

LAYERS = ("exclusive", "base", "enhancement")
PUBLISHES = ("curator",)  # the change event of every write
KINDS = ("screens", "tickers", "overlays")
OPS = ("add", "remove")
MAX_RULES = 50
MAX_MEMBERS = 500
SORT = validate.Range(min=-1_000_000, max=1_000_000)


def define_entities(db: Any) -> None:
    class CuratorConfiguration(db.Entity):
        _table_ = "svc_curator_configuration"
        id = orm.PrimaryKey(str, 128)
        name = orm.Required(str, 200)
        layer = orm.Required(str, 16)
        sort_order = orm.Required(int, default=0)
        enabled = orm.Required(bool, default=True)
        screens_enabled = orm.Optional(bool, nullable=True)
        ticker_enabled = orm.Optional(bool, nullable=True)
        ticker_overrides = orm.Optional(orm.Json, nullable=True)
        theme_id = orm.Optional(str, 100, nullable=True)
        viewport_overrides = orm.Optional(orm.Json, nullable=True)
        rules = orm.Set("CuratorRule", cascade_delete=True)
        members = orm.Set("CuratorMember", cascade_delete=True)

    class CuratorRule(db.Entity):
        _table_ = "svc_curator_rule"
        id = orm.PrimaryKey(str, 64)
        configuration = orm.Required(CuratorConfiguration)
        predicate = orm.Required(str, 100)
        params = orm.Optional(orm.Json, nullable=True)
        negate = orm.Required(bool, default=False)
        sort_order = orm.Required(int, default=0)

    class CuratorMember(db.Entity):
        _table_ = "svc_curator_member"
        configuration = orm.Required(CuratorConfiguration)
        kind = orm.Required(str, 16)
        position = orm.Required(int)
        member_id = orm.Required(str, 128)
        op = orm.Required(str, 8)
        orm.PrimaryKey(configuration, kind, position)


# ---- schemas ----------------------------------------------------------------------------

class MemberOp(fields.Field):
    """A member id string (meaning ``add``) or ``{id, op}``; loads as ``{id, op}``."""

    default_error_messages = {"invalid": "must be an id string or {{id, op}} with op add or remove"}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> dict:
        if isinstance(value, str):
            value = {"id": value, "op": "add"}
        if not isinstance(value, dict) or set(value) - {"id", "op"} or "id" not in value:
            raise self.make_error("invalid")
        member_id, op = value["id"], value.get("op", "add")
        if not isinstance(member_id, str) or not CLIENT_ID.match(member_id) or op not in OPS:
            raise self.make_error("invalid")
        return {"id": member_id, "op": op}


def _member_list() -> fields.List:
    return fields.List(MemberOp(), validate=validate.Length(max=MAX_MEMBERS))


class MembersBody(Schema):
    screens = _member_list()
    tickers = _member_list()
    overlays = _member_list()


class RuleBody(Schema):
    predicate = Text(required=True, validate=validate.Length(min=1, max=100))
    params = StorableJsonObject(load_default=dict)
    negate = fields.Boolean(load_default=False)
    sort_order = fields.Integer(load_default=0, validate=SORT)


class RulePatch(Schema):
    predicate = Text(validate=validate.Length(min=1, max=100))
    params = StorableJsonObject()
    negate = fields.Boolean()
    sort_order = fields.Integer(validate=SORT)

    @validates_schema
    def _some(self, data: dict, **kwargs: Any) -> None:
        require_some(data, ["predicate", "params", "negate", "sort_order"])


class ConfigurationFields(Schema):
    name = Text(validate=[validate.Length(min=1, max=200), not_blank])
    layer = Text(validate=validate.OneOf(LAYERS))
    sort_order = fields.Integer(validate=SORT)
    enabled = fields.Boolean()
    screens_enabled = fields.Boolean(allow_none=True)
    ticker_enabled = fields.Boolean(allow_none=True)
    ticker_overrides = StorableJsonObject(allow_none=True)
    theme_id = Text(allow_none=True, validate=validate.Length(min=1, max=100))
    viewport_overrides = StorableJsonObject(allow_none=True)
    rules = fields.List(fields.Nested(RuleBody), validate=validate.Length(max=MAX_RULES))
    members = fields.Nested(MembersBody)


class ConfigurationCreate(ConfigurationFields):
    id = Text(required=True, validate=client_id)
    name = Text(required=True, validate=[validate.Length(min=1, max=200), not_blank])
    layer = Text(required=True, validate=validate.OneOf(LAYERS))


class ConfigurationPatch(ConfigurationFields):
    @validates_schema
    def _some(self, data: dict, **kwargs: Any) -> None:
        require_some(data, list(ConfigurationFields._declared_fields))


SCALARS = ("name", "layer", "sort_order", "enabled", "screens_enabled", "ticker_enabled", "ticker_overrides",
           "theme_id", "viewport_overrides")


# ---- serialization ----------------------------------------------------------------------

def rule_json(rule: Any) -> dict:
    return {"id": rule.id, "predicate": rule.predicate, "params": rule.params or {}, "negate": rule.negate,
            "sort_order": rule.sort_order}


def members_json(configuration: Any) -> dict:
    out: dict[str, list] = {kind: [] for kind in KINDS}
    for member in sorted(configuration.members, key=lambda m: (m.kind, m.position)):
        out[member.kind].append({"id": member.member_id, "op": member.op})
    return out


def configuration_json(row: Any) -> dict:
    return {"id": row.id, "name": row.name, "layer": row.layer, "sort_order": row.sort_order,
            "enabled": row.enabled, "screens_enabled": row.screens_enabled, "ticker_enabled": row.ticker_enabled,
            "ticker_overrides": row.ticker_overrides, "theme_id": row.theme_id,
            "viewport_overrides": row.viewport_overrides}


def sorted_rules(row: Any) -> list[Any]:
    return sorted(row.rules, key=lambda r: (r.sort_order, r.id))


def configuration_detail(row: Any) -> dict:
    return {**configuration_json(row), "rules": [rule_json(r) for r in sorted_rules(row)],
            "members": members_json(row)}


# ---- writes -----------------------------------------------------------------------------

def check_rule(host: Any, predicate: str, params: dict, field: str = "params") -> None:
    if predicate not in host.registries.curator_predicates:
        raise ApiError(400, "validation_failed", "unknown predicate",
                       {"predicate" if field == "params" else field: [f"{predicate!r} is not a registered predicate (GET /v1/meta/curator-state-predicates)"]})
    check = PARAM_CHECKS.get(predicate)
    if check is not None:
        try:
            check(params)
        except ParamsError as exc:
            raise ApiError(400, "validation_failed", "rule params do not fit the predicate", {field: [str(exc)]}) from None


def add_rule(host: Any, configuration: Any, body: dict, field: str = "params") -> Any:
    check_rule(host, body["predicate"], body["params"], field)
    return host.db.CuratorRule(id=uuid.uuid4().hex, configuration=configuration, predicate=body["predicate"],
                               params=body["params"], negate=body["negate"], sort_order=body["sort_order"])


def replace_members(db: Any, configuration: Any, members: dict) -> None:
    for kind in KINDS:
        ops = members.get(kind, [])
        seen = set()
        for op in ops:
            if op["id"] in seen:
                raise ApiError(400, "validation_failed", "a member is listed twice",
                               {kind: [f"{op['id']!r} appears more than once"]})
            seen.add(op["id"])
    for member in list(configuration.members):
        member.delete()
    db.flush()
    for kind in KINDS:
        for position, op in enumerate(members.get(kind, [])):
            db.CuratorMember(configuration=configuration, kind=kind, position=position, member_id=op["id"],
                             op=op["op"])


def _configuration(host: Any, config_id: str) -> Any:
    return stored_row(host.db.CuratorConfiguration, config_id, "curator configuration")


def _rule(configuration: Any, rule_id: str) -> Any:
    for rule in configuration.rules:
        if rule.id == rule_id:
            return rule
    raise not_found("rule")


# ---- resources --------------------------------------------------------------------------

class ConfigurationsResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any) -> None:
        rows = self.host.db.CuratorConfiguration.select().order_by(lambda c: (c.sort_order, c.id))
        resp.media = {"items": [configuration_json(r) for r in rows]}

    def on_post(self, req: Any, resp: Any) -> None:
        body = req.context.body
        db = self.host.db
        if db.CuratorConfiguration.get(id=body["id"]) is not None:
            raise conflict(f"configuration {body['id']!r} already exists")
        row = db.CuratorConfiguration(id=body["id"], **{k: body[k] for k in SCALARS if k in body})
        for rule in body.get("rules", []):
            add_rule(self.host, row, rule, "rules")
        replace_members(db, row, body.get("members", {}))
        db.flush()
        resp.status = 201
        resp.media = configuration_detail(row)


class ConfigurationResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: Any, resp: Any, id: str) -> None:
        resp.media = configuration_detail(_configuration(self.host, id))

    def on_patch(self, req: Any, resp: Any, id: str) -> None:
        row = _configuration(self.host, id)
        body = req.context.body
        row.set(**{k: body[k] for k in SCALARS if k in body})
        if "rules" in body:
            for rule in list(row.rules):
                rule.delete()
            self.host.db.flush()
            for rule in body["rules"]:
                add_rule(self.host, row, rule, "rules")
        if "members" in body:
            replace_members(self.host.db, row, body["members"])
        self.host.db.flush()
        resp.media = configuration_detail(row)

    def on_delete(self, req: Any, resp: Any, id: str) -> None:
        _configuration(self.host, id).delete()
        resp.status = 204


class RulesResource:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: Any, resp: Any, id: str) -> None:
        row = _configuration(self.host, id)
        if len(row.rules) >= MAX_RULES:
            raise ApiError(400, "validation_failed", "too many rules", {"rules": [f"at most {MAX_RULES}"]})
        rule = add_rule(self.host, row, req.context.body)
        resp.status = 201
        resp.media = rule_json(rule)


class RuleResource:
    def __init__(self, host: Any):
        self.host = host

    def on_patch(self, req: Any, resp: Any, id: str, rule_id: str) -> None:
        rule = _rule(_configuration(self.host, id), rule_id)
        body = req.context.body
        predicate = body.get("predicate", rule.predicate)
        params = body.get("params", rule.params or {})
        check_rule(self.host, predicate, params)
        rule.set(predicate=predicate, params=params, negate=body.get("negate", rule.negate),
                 sort_order=body.get("sort_order", rule.sort_order))
        resp.media = rule_json(rule)

    def on_delete(self, req: Any, resp: Any, id: str, rule_id: str) -> None:
        _rule(_configuration(self.host, id), rule_id).delete()
        resp.status = 204


class MembersResource:
    def __init__(self, host: Any):
        self.host = host

    def on_put(self, req: Any, resp: Any, id: str) -> None:
        row = _configuration(self.host, id)
        replace_members(self.host.db, row, req.context.body)
        self.host.db.flush()
        resp.media = members_json(row)


def routes(host: Any) -> list[Route]:
    tags = ("curator",)
    base = "/v1/curator/configurations"
    return [
        Route(base, ConfigurationsResource(host), {
            "GET": Operation(AUTHENTICATED, "list curator configurations", tags=tags),
            "POST": Operation(CURATOR_WRITE, "create a configuration with rules, members and overrides",
                              body=ConfigurationCreate, status=201, tags=tags, publishes=PUBLISHES),
        }),
        Route(base + "/{id}", ConfigurationResource(host), {
            "GET": Operation(AUTHENTICATED, "one configuration with rules and members", tags=tags),
            "PATCH": Operation(CURATOR_WRITE, "change a configuration (rules/members replaced when sent)",
                               body=ConfigurationPatch, tags=tags, publishes=PUBLISHES),
            "DELETE": Operation(CURATOR_WRITE, "delete a configuration with its rules and members", status=204,
                                tags=tags, publishes=PUBLISHES),
        }),
        Route(base + "/{id}/rules", RulesResource(host), {
            "POST": Operation(CURATOR_WRITE, "add a schedule rule", body=RuleBody, status=201, tags=tags,
                              publishes=PUBLISHES),
        }),
        Route(base + "/{id}/rules/{rule_id}", RuleResource(host), {
            "PATCH": Operation(CURATOR_WRITE, "change a schedule rule", body=RulePatch, tags=tags,
                               publishes=PUBLISHES),
            "DELETE": Operation(CURATOR_WRITE, "delete a schedule rule", status=204, tags=tags,
                                publishes=PUBLISHES),
        }),
        Route(base + "/{id}/members", MembersResource(host), {
            "PUT": Operation(CURATOR_WRITE, "replace the member ops of a configuration", body=MembersBody,
                             tags=tags, publishes=PUBLISHES),
        }),
    ]
