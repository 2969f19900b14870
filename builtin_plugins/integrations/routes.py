"""REST routes of spec 4.12 (integrations) and 4.8 (integration telemetry)."""

from __future__ import annotations

import re
import threading
from typing import Any
from urllib.parse import urlsplit

import falcon
from marshmallow import Schema, ValidationError, fields, validate, validates_schema
from pony import orm

from svc_host.kit.rest import (ApiError, BooleanText, JsonObject, StrictBoolean, not_found, substring_needle,
                               validation_failed)
from hookspecs import Operation, Route
from hookspecs.collect import AccountError
from hookspecs.permissions import INTEGRATIONS_READ, TELEMETRY_READ

from builtin_plugins.integrations.engine import MAX_POLL_SECONDS, MIN_POLL_SECONDS
from hookspecs.services import ACCOUNTS, INTEGRATIONS, INTEGRATION_TELEMETRY

# Type ids are ^[a-z][a-z0-9_]*$; rows added for an instance of a type (a folder plugin's
# plugin_http.<plugin id>) may carry '.' and '-' too.
ID_PATTERN = re.compile(r"^[a-z][a-z0-9_.-]{0,99}$")
SORTS = ("id", "integration_type", "poll_seconds", "enabled")
MAX_SECRET_LENGTH = 8192
MAX_BASE_URL = 2048
TELEMETRY_MAX = 2000
MAX_WAITING_RUNS = 4

INTEGRATIONS_WRITE = "integrations.write"


class ListQuery(Schema):
    enabled = BooleanText()
    limit = fields.Integer(validate=validate.Range(min=1, max=100))
    offset = fields.Integer(validate=validate.Range(min=0, max=10_000_000))
    sort = fields.String(validate=validate.OneOf(SORTS))
    order = fields.String(validate=validate.OneOf(("asc", "desc")))
    family = fields.String(validate=validate.Length(max=100))
    integration_type = fields.String(validate=validate.Length(max=100))
    q = fields.String(validate=validate.Length(max=200))
    secrets_configured = BooleanText()
    accounts_configured = BooleanText()
    facets = fields.String(validate=validate.OneOf(("family",)))
    include_config_schema = BooleanText()


class SchemaQuery(Schema):
    include_config_schema = BooleanText()


def _base_url(value: Any) -> None:
    if value in (None, ""):
        return
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValidationError("must be an http(s) URL")


class Secrets(fields.Dict):
    def __init__(self, **kwargs: Any):
        super().__init__(
            keys=fields.String(validate=validate.Length(min=1, max=100)),
            values=fields.String(allow_none=True, validate=validate.Length(max=MAX_SECRET_LENGTH)),
            **kwargs,
        )


class PatchBody(Schema):
    enabled = StrictBoolean()
    poll_seconds = fields.Integer(
        strict=True, validate=validate.Range(min=MIN_POLL_SECONDS, max=MAX_POLL_SECONDS)
    )
    base_url = fields.String(allow_none=True, validate=[validate.Length(max=MAX_BASE_URL), _base_url])
    config_json = JsonObject()
    secrets = Secrets()

    @validates_schema
    def _some(self, data: dict, **_: Any) -> None:
        if not data:
            raise ValidationError(
                "send at least one of: enabled, poll_seconds, base_url, config_json, secrets"
            )


class TelemetryQuery(Schema):
    limit = fields.Integer(load_default=200, validate=validate.Range(min=1, max=TELEMETRY_MAX))
    since_ms = fields.Integer(validate=validate.Range(min=0, max=2**62))


def family_of(integration_type: str) -> str:
    return integration_type.split("_", 1)[0]


def _engine(host: Any) -> Any:
    engine = host.services.get(INTEGRATIONS)
    if engine is None:
        raise ApiError(503, "integrations_unavailable", "the integrations engine is not running")
    return engine


def serialize(host: Any, row: Any, itype: Any) -> dict[str, Any]:
    """One integration as the API shows it (needs a db_session). Secrets never leave.

    ``itype`` is None for a row whose type is no longer registered (its plugin failed or was
    removed): it is listed with ``plugin_missing: true`` (a field beyond the spec's) and no
    settings, so an operator sees it rather than losing it; PATCH and run refuse it (409)."""
    engine = _engine(host)
    stored = engine.secret_names(row.id)
    accounts = [
        {"id": a.id, "account_type": a.account_type, "label": a.label, "created_at_ms": a.created_at_ms}
        for a in host.db.IntegrationAccount.select(lambda a: a.integration_id == row.id).order_by(
            lambda a: a.created_at_ms
        )
    ]
    secret_fields = list(itype.secret_fields) if itype else []
    required = list(itype.required_account_types) if itype else []
    linked_types = {a["account_type"] for a in accounts}
    accounts_ok = itype is not None and all(t in linked_types for t in required) and (
        not itype.requires_accounts or bool(accounts))
    return {
        "id": row.id,
        "integration_type": row.integration_type,
        "family": family_of(row.integration_type),
        "label": itype.label if itype else row.integration_type,
        "plugin_missing": itype is None,
        "enabled": row.enabled,
        "poll_seconds": row.poll_seconds,
        "config_json": dict(row.config_json or {}),
        "secrets_configured": itype is not None and all(
            name in stored for name in secret_fields if name not in itype.optional_secrets),
        "secret_fields": [{"name": name, "configured": name in stored} for name in secret_fields],
        "accounts_configured": accounts_ok,
        "requires_accounts": bool(itype and itype.requires_accounts),
        "linked_accounts": accounts,
        "required_account_types": required,
        "consecutive_failures": row.consecutive_failures,
        "next_retry_at": row.next_retry_at,
        "last_run_at_ms": row.last_run_at_ms,
        "last_success_at_ms": row.last_success_at_ms,
        "last_error": row.last_error,
    }


def _rows(host: Any) -> list[tuple[Any, Any]]:
    types = host.registries.integration_types
    return [(row, types.get(row.integration_type)) for row in host.db.Integration.select()]


def _get_row(host: Any, integration_id: str, *, registered: bool = True) -> tuple[Any, Any]:
    """The row and its type; with ``registered``, a row whose type is missing is refused (409)."""
    if not ID_PATTERN.match(integration_id or ""):
        raise not_found("integration")
    row = host.db.Integration.get(id=integration_id)
    if row is None:
        raise not_found("integration")
    itype = host.registries.integration_types.get(row.integration_type)
    if itype is None and registered:
        raise ApiError(409, "integration_plugin_missing",
                       f"integration {row.id!r} is of type {row.integration_type!r}, which no loaded "
                       "plugin registers (the plugin failed to load or was removed); see "
                       "GET /v1/plugins and the display log, fix or restore the plugin and restart")
    return row, itype


def _attach_schemas(items: list[dict[str, Any]], host: Any) -> None:
    """``config_json_schema`` once per integration type: on the first row of that type only."""
    seen: set[str] = set()
    for item in items:
        if item["integration_type"] not in seen and not item["plugin_missing"]:
            seen.add(item["integration_type"])
            item["config_json_schema"] = dict(
                host.registries.integration_types.get(item["integration_type"]).config_schema
            )


class IntegrationsCollection:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = req.context.query
        items = [serialize(self.host, row, itype) for row, itype in _rows(self.host)]

        def keep(item: dict[str, Any], with_family: bool) -> bool:
            if "enabled" in query and item["enabled"] != query["enabled"]:
                return False
            if with_family and "family" in query and item["family"] != query["family"]:
                return False
            if "integration_type" in query and item["integration_type"] != query["integration_type"]:
                return False
            if "q" in query:
                needle = substring_needle(query["q"]).lower()
                if needle not in item["id"].lower() and needle not in item["integration_type"].lower():
                    return False
            if "secrets_configured" in query and item["secrets_configured"] != query["secrets_configured"]:
                return False
            if "accounts_configured" in query and item["accounts_configured"] != query["accounts_configured"]:
                return False
            return True

        selected = [item for item in items if keep(item, True)]
        sort = query.get("sort", "id")
        selected.sort(key=lambda item: item["id"])
        selected.sort(key=lambda item: item[sort], reverse=query.get("order") == "desc")
        body: dict[str, Any] = {}
        paginated = any(name in query for name in ("enabled", "limit", "offset"))
        if paginated:
            limit, offset = query.get("limit", 25), query.get("offset", 0)
            body.update(
                items=selected[offset:offset + limit], total=len(selected), limit=limit, offset=offset
            )
        else:
            body["items"] = selected
        if query.get("include_config_schema"):
            _attach_schemas(body["items"], self.host)
        if query.get("facets") == "family":
            counts: dict[str, int] = {}
            for item in items:
                if keep(item, False):
                    counts[item["family"]] = counts.get(item["family"], 0) + 1
            body["facets"] = {"family": dict(sorted(counts.items()))}
        resp.media = body


class IntegrationItem:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        row, itype = _get_row(self.host, id, registered=False)
        item = serialize(self.host, row, itype)
        if req.context.query.get("include_config_schema"):
            _attach_schemas([item], self.host)
        resp.media = item

    def on_patch(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        body = req.context.body
        engine = _engine(self.host)
        row, itype = _get_row(self.host, id)
        config = dict(row.config_json or {})
        if "config_json" in body:
            config = dict(body["config_json"])
        if "base_url" in body:
            if body["base_url"]:
                config["baseUrl"] = body["base_url"]
            else:
                config.pop("baseUrl", None)
        if "config_json" in body or "base_url" in body:
            errors = validate_config(self.host, itype, config)
            if errors:
                raise validation_failed(
                    {"config_json": errors}, "config_json does not match the type's schema"
                )
            row.config_json = config
        if "secrets" in body:
            unknown = sorted(set(body["secrets"]) - set(itype.secret_fields))
            if unknown:
                raise validation_failed(
                    {
                        "secrets": [
                            f"unknown secret names: {', '.join(unknown)}; this type "
                            f"takes: {', '.join(itype.secret_fields) or 'none'}"
                        ]
                    }
                )
            for name, value in body["secrets"].items():
                engine.set_secret(row.id, name, value)
        was_enabled = row.enabled
        if "enabled" in body:
            row.enabled = body["enabled"]
        if "poll_seconds" in body:
            row.poll_seconds = body["poll_seconds"]
        if body.get("enabled") and not was_enabled:
            # A freshly enabled integration starts clean: no inherited backoff.
            row.set(consecutive_failures=0, next_retry_at=None)
        orm.commit()
        if engine.running:
            engine.reschedule(row.id, run_soon=bool(body.get("enabled") and not was_enabled))
        resp.media = serialize(self.host, row, itype)


def validate_config(host: Any, itype: Any, config: dict) -> list[str]:
    """Schema errors of ``config``; ``baseUrl`` is checked here, so every type accepts it."""
    errors = []
    rest = dict(config)
    if "baseUrl" in rest:
        base = rest.pop("baseUrl")
        try:
            if not isinstance(base, str) or len(base) > MAX_BASE_URL:
                raise ValidationError("x")
            _base_url(base)
        except ValidationError:
            errors.append("/baseUrl: must be an http(s) URL of at most 2048 characters")
        if "baseUrl" in itype.config_schema.get("properties", {}):
            rest["baseUrl"] = base if isinstance(base, str) else ""
    errors += [
        f"{path or '/'}: {message}"
        for path, message in host.registries.integration_types.validate_config(itype.id, rest)
    ]
    return errors


class RunItem:
    """Runs one collection and waits for it; at most :data:`MAX_WAITING_RUNS` requests wait at
    once, so stuck upstreams can never tie up the HTTP worker threads (409 ``runs_in_progress``)."""

    def __init__(self, host: Any):
        self.host = host
        self.waiting = threading.BoundedSemaphore(MAX_WAITING_RUNS)

    def on_post(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        with orm.db_session:
            _get_row(self.host, id)
        if self.host.settings.saas_mode:  # docs/cloud-feed.md: no local collector runs in this mode
            raise ApiError(409, "saas_mode", "this display is fed by the cloud feed (SVC_SAAS_MODE=1): local "
                                             "collectors do not run, so an integration cannot be run here")
        if not self.waiting.acquire(blocking=False):
            raise ApiError(409, "runs_in_progress",
                           f"{MAX_WAITING_RUNS} manual runs are already in progress; try again later")
        try:
            result = _engine(self.host).run_now(id, force=True)
        finally:
            self.waiting.release()
        resp.media = result.as_dict()


class TelemetryCollection:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        query = req.context.query
        telemetry = self.host.services.get(INTEGRATION_TELEMETRY)
        lines = telemetry.lines(query["limit"], query.get("since_ms")) if telemetry is not None else []
        resp.media = {"items": lines}


ACCOUNT_ID = re.compile(r"^[a-f0-9]{32}$")
SIGN_IN_ID = re.compile(r"^[A-Za-z0-9_-]{10,64}$")


class DeviceCodeBody(Schema):
    account_type = fields.String(validate=validate.OneOf(("google", "microsoft")))


class TokenAccountBody(Schema):
    account_type = fields.String(required=True, validate=validate.Regexp(r"^[a-z][a-z0-9_]{0,31}$"))
    label = fields.String(load_default="", validate=validate.Length(max=300))
    token = fields.String(required=True, validate=validate.Length(min=1, max=MAX_SECRET_LENGTH))


def _accounts(host: Any) -> Any:
    service = host.services.get(ACCOUNTS)
    if service is None:
        raise ApiError(503, "integrations_unavailable", "the integrations engine is not running")
    return service


def _account_call(call: Any, *args: Any) -> Any:
    try:
        return call(*args)
    except AccountError as exc:
        raise ApiError(exc.status, exc.code, str(exc)) from None


class DeviceCodeStart:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        body = req.context.body or {}
        with orm.db_session:
            _row, itype = _get_row(self.host, id)
        from builtin_plugins.integrations.accounts import PROVIDERS

        choices = [t for t in itype.required_account_types if t in PROVIDERS]
        account_type = body.get("account_type") or (choices[0] if choices else None)
        if account_type is None or account_type not in choices:
            raise validation_failed(
                {"account_type": [f"this integration signs in with: {', '.join(choices) or 'none'}"]}
            )
        resp.media = _account_call(_accounts(self.host).start_device_sign_in, id, account_type)


class DeviceCodePoll:
    def __init__(self, host: Any):
        self.host = host

    def on_post(
        self, req: falcon.Request, resp: falcon.Response, id: str, sign_in_id: str
    ) -> None:  # noqa: A002
        with orm.db_session:
            _get_row(self.host, id)
        if not SIGN_IN_ID.match(sign_in_id or ""):
            raise not_found("sign-in")
        resp.media = _account_call(_accounts(self.host).poll_device_sign_in, id, sign_in_id)


class TokenAccounts:
    def __init__(self, host: Any):
        self.host = host

    def on_post(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:  # noqa: A002
        body = req.context.body
        _row, itype = _get_row(self.host, id)
        from builtin_plugins.integrations.accounts import PROVIDERS

        allowed = [t for t in itype.required_account_types if t not in PROVIDERS]
        if body["account_type"] not in allowed:
            raise validation_failed(
                {"account_type": [f"token accounts of this integration: {', '.join(allowed) or 'none'}"]}
            )
        resp.status = falcon.HTTP_201
        resp.media = _accounts(self.host).link(
            id, body["account_type"], body["label"], {"token": body["token"]}
        )


class AccountItem:
    def __init__(self, host: Any):
        self.host = host

    def on_delete(self, req: falcon.Request, resp: falcon.Response, account_id: str) -> None:
        if not ACCOUNT_ID.match(account_id or "") or not _accounts(self.host).unlink(account_id):
            raise not_found("account")
        resp.media = {}


def routes(host: Any) -> list[Route]:
    return [
        Route(
            "/v1/integrations",
            IntegrationsCollection(host),
            {
                "GET": Operation(
                    INTEGRATIONS_READ, "List integrations (spec 4.12)", query=ListQuery, tags=["integrations"]
                )
            },
        ),
        Route(
            "/v1/integrations/{id}",
            IntegrationItem(host),
            {
                "GET": Operation(
                    INTEGRATIONS_READ, "One integration", query=SchemaQuery, tags=["integrations"]
                ),
                "PATCH": Operation(
                    INTEGRATIONS_WRITE,
                    "Change an integration: enabled, poll_seconds, base_url, config_json, secrets",
                    body=PatchBody,
                    tags=["integrations"],
                ),
            },
        ),
        Route(
            "/v1/integrations/{id}/run",
            RunItem(host),
            {
                "POST": Operation(
                    INTEGRATIONS_WRITE,
                    "Run one collection now and wait for its outcome",
                    tags=["integrations"],
                )
            },
            db_session=False,
        ),
        Route(
            "/v1/integrations/{id}/accounts",
            TokenAccounts(host),
            {
                "POST": Operation(
                    INTEGRATIONS_WRITE,
                    "Link a token account (for example a Trello member token)",
                    body=TokenAccountBody,
                    status=201,
                    tags=["integrations"],
                )
            },
        ),
        Route(
            "/v1/integrations/{id}/accounts/device-code",
            DeviceCodeStart(host),
            {
                "POST": Operation(
                    INTEGRATIONS_WRITE,
                    "Start an OAuth device-code sign-in (Google, Microsoft)",
                    body=DeviceCodeBody,
                    tags=["integrations"],
                )
            },
            db_session=False,
        ),
        Route(
            "/v1/integrations/{id}/accounts/device-code/{sign_in_id}/poll",
            DeviceCodePoll(host),
            {"POST": Operation(INTEGRATIONS_WRITE, "Poll a device-code sign-in once", tags=["integrations"])},
            db_session=False,
        ),
        Route(
            "/v1/integration-accounts/{account_id}",
            AccountItem(host),
            {
                "DELETE": Operation(
                    INTEGRATIONS_WRITE, "Unlink an account and forget its token", tags=["integrations"]
                )
            },
        ),
        Route(
            "/v1/telemetry/integrations",
            TelemetryCollection(host),
            {
                "GET": Operation(
                    TELEMETRY_READ,
                    "Integration telemetry lines, oldest first",
                    query=TelemetryQuery,
                    tags=["telemetry"],
                )
            },
        ),
    ]
