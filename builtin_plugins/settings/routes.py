"""Routes of the settings plugin: display settings, themes and key-values (spec 2.11, 4.10).

Reads need a valid key. Writes need ``settings.write``; changing the adoption settings
(``adoption_allowed_roles``, ``adoption_allow_new_requests``) needs ``adoption.admin``.
Key-value writes also admit a caller holding ``settings.write`` for some keys only (a folder
plugin's key: ``ticker.marquee.<id>``); any other key is 403 for it.
"""
from __future__ import annotations

from typing import Any

import falcon
from marshmallow import EXCLUDE, Schema, fields, validate

from hookspecs import AUTHENTICATED, Operation, Route
from svc_host.kit.formatting import is_iana_zone
from svc_host.kit.rest import ApiError, EmptySchema, StorableSchema, validation_failed
from builtin_plugins.settings.store import ALL_ROLES, KEY_MAX, VALUE_MAX
from builtin_plugins.settings.themes import (
    BUILTIN_THEMES,
    CUSTOM_THEMES_KEY,
    DEFAULT_THEME_ID,
    LABEL_MAX,
    PREVIEW_JSON_SCHEMA,
    MAX_CUSTOM_THEMES,
    THEME_KEY_VALUE,
    all_themes,
    contrast_problems,
    custom_themes,
    new_theme_id,
    preview_problems,
    theme_exists,
)
from builtin_plugins.settings.store import SETTINGS_WRITE
from hookspecs.permissions import ADOPTION_ADMIN
from hookspecs.services import SETTINGS
from hookspecs.records import record

PUBLISHES = ("settings",)  # the change event of every write
TEXT_SCALE = validate.Range(min=0.5, max=3.0)
OVERSCAN = validate.Range(min=0, max=10)
SYNC_GROUP = validate.Regexp(r"\A(?:[A-Za-z0-9](?:[A-Za-z0-9 ._-]{0,62}[A-Za-z0-9._-])?)?\Z",
                             error="empty, or 1-64 letters, digits, spaces, '.', '_' or '-', starting with a letter "
                                   "or digit and not ending with a space")
SYNC_GROUP_WORDS = {"title": "Sync group",
                    "description": "displays with the same sync group and program change slides at the same "
                                   "wall-clock instants (clocks NTP-synchronised); empty: this display's cycle "
                                   "runs on its own"}
ADOPTION_KEYS = ("adoption_allowed_roles", "adoption_allow_new_requests")


# ---- settings --------------------------------------------------------------------------

class ThemeSchema(Schema):
    id = fields.String(required=True)
    label = fields.String(required=True)
    preview = fields.Dict(required=True)
    builtin = fields.Boolean(metadata={"description": "true for the builtin set (not patchable)"})


SettingsSchema = record(
    "SettingsSchema", display_theme_id=fields.String,
    display_custom_themes=fields.List(fields.Nested(ThemeSchema),
                                      metadata={"description": "read-only here; use /v1/display/themes"}),
    display_text_scale_screen=fields.Float, display_text_scale_ticker=fields.Float, display_timezone=fields.String,
    display_overscan_percent=fields.Float(metadata={"title": "Overscan (%)"}),
    controller_time_format=fields.String(validate=validate.OneOf(("12h", "24h"))),
    controller_date_order=fields.String(validate=validate.OneOf(("mdy", "dmy", "ymd"))),
    display_weather_temperature_unit=fields.String(validate=validate.OneOf(("c", "f"))),
    adoption_allowed_roles=fields.List(fields.String()),
    adoption_allow_new_requests=fields.Boolean(metadata={"description": "legacy view"}),
    sync_group=fields.String(metadata=SYNC_GROUP_WORDS))


class SettingsUpdate(StorableSchema):
    """Partial update; keys this schema does not know are ignored (``no_display_settings_fields`` if none)."""

    class Meta:
        unknown = EXCLUDE

    display_theme_id = fields.String(validate=validate.Length(min=1, max=128))
    display_text_scale_screen = fields.Float(allow_nan=False, validate=TEXT_SCALE)
    display_text_scale_ticker = fields.Float(allow_nan=False, validate=TEXT_SCALE)
    display_overscan_percent = fields.Float(
        allow_nan=False, validate=OVERSCAN,
        metadata={"title": "Overscan (%)",
                  "description": "how much of the picture a TV that overscans HDMI crops, 0 to 10 % of each "
                                 "dimension: the whole composition is drawn that much smaller, centred"})
    display_timezone = fields.String(validate=validate.Length(max=64),
                                     metadata={"description": "IANA zone; empty string removes the setting"})
    controller_time_format = fields.String(validate=validate.OneOf(("12h", "24h")))
    controller_date_order = fields.String(validate=validate.OneOf(("mdy", "dmy", "ymd")))
    display_weather_temperature_unit = fields.String(validate=validate.OneOf(("c", "f")))
    adoption_allowed_roles = fields.List(fields.String(validate=validate.OneOf(ALL_ROLES)),
                                         validate=validate.Length(max=len(ALL_ROLES) * 2))
    adoption_allow_new_requests = fields.Boolean()
    sync_group = fields.String(validate=SYNC_GROUP, metadata=SYNC_GROUP_WORDS)


def current_settings(service: Any) -> dict[str, Any]:
    roles = list(service.get("adoption_allowed_roles") or [])
    return {
        "display_theme_id": service.get("display_theme_id"),
        "display_custom_themes": custom_themes(service),
        "display_text_scale_screen": float(service.get("display_text_scale_screen")),
        "display_text_scale_ticker": float(service.get("display_text_scale_ticker")),
        "display_overscan_percent": float(service.get("display_overscan_percent")),
        "display_timezone": service.get("display_timezone"),
        "controller_time_format": service.get("controller_time_format"),
        "controller_date_order": service.get("controller_date_order"),
        "display_weather_temperature_unit": service.get("display_weather_temperature_unit"),
        "adoption_allowed_roles": roles,
        "adoption_allow_new_requests": bool(roles),
        "sync_group": str(service.get("sync_group") or ""),
    }


class SettingsResource:
    def __init__(self, host: Any):
        self.host = host

    @property
    def service(self) -> Any:
        return self.host.services[SETTINGS]

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = current_settings(self.service)

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = dict(req.context.body)
        if not body:
            raise ApiError(400, "no_display_settings_fields",
                           "send at least one display setting: " + ", ".join(SettingsUpdate().fields))
        if any(key in body for key in ADOPTION_KEYS) and not req.context.principal.has(ADOPTION_ADMIN):
            raise ApiError(403, "forbidden", f"changing adoption settings needs the permission {ADOPTION_ADMIN!r}")
        service = self.service
        if "display_theme_id" in body and not theme_exists(service, body["display_theme_id"]):
            raise ApiError(400, "unknown_display_theme_id",
                           f"theme {body['display_theme_id'][:128]!r} is neither builtin nor a stored custom theme")
        if "display_theme_id" in body:
            _check_stored_theme(service, body["display_theme_id"])
        zone = body.pop("display_timezone", None)
        if zone is not None:
            if zone == "":
                service.delete("display_timezone")
            elif not is_iana_zone(zone):
                raise validation_failed({"display_timezone": ["must be an IANA time zone such as Europe/Berlin"]})
            else:
                service.set("display_timezone", zone)
        if body.get("sync_group") == "":  # out of the group: the row goes (the default is empty)
            del body["sync_group"]
            service.delete("sync_group")
        if "adoption_allow_new_requests" in body:
            allow = body.pop("adoption_allow_new_requests")
            if "adoption_allowed_roles" not in body:
                body["adoption_allowed_roles"] = list(ALL_ROLES) if allow else []
            service.delete("adoption_allow_new_requests")
        if "adoption_allowed_roles" in body:
            body["adoption_allowed_roles"] = [r for r in ALL_ROLES if r in body["adoption_allowed_roles"]]
        for key, value in body.items():
            service.set(key, value)
        if "display_theme_id" in body and self.host.db.KeyValue.get(key=THEME_KEY_VALUE) is not None:
            self.host.db.KeyValue[THEME_KEY_VALUE].value = body["display_theme_id"]
        resp.media = current_settings(service)


# ---- themes ----------------------------------------------------------------------------

ThemeList = record("ThemeList", items=fields.List(fields.Nested(ThemeSchema)))


class ThemeCreate(StorableSchema):
    label = fields.String(required=True, validate=validate.Length(min=1, max=LABEL_MAX))
    preview = fields.Raw(required=True, allow_none=True, metadata=PREVIEW_JSON_SCHEMA)


class ThemePatch(StorableSchema):
    label = fields.String(validate=validate.Length(min=1, max=LABEL_MAX))
    preview = fields.Raw(allow_none=True, metadata=PREVIEW_JSON_SCHEMA)


def _check_preview(preview: Any) -> dict[str, list]:
    problems = preview_problems(preview)
    if problems:
        raise ApiError(400, "invalid_display_theme_preview", "the theme preview is malformed",
                       {"preview": {pointer: [message] for pointer, message in problems.items()}})
    _check_contrast(preview, lambda first: f"the theme's text would not read: {first}")
    kept: dict[str, Any] = {key: list(preview[key]) for key in ("display", "primaryContainer", "secondaryContainer",
                                                                 "accents")}
    if "transition" in preview:
        kept["transition"] = preview["transition"]
    return kept


def _check_stored_theme(service: Any, theme_id: str) -> None:
    """A custom theme stored before the contrast rule (or written around the routes) is checked
    again when it is selected: a theme whose text would not read is refused like a new one."""
    stored = next((t for t in custom_themes(service) if t.get("id") == theme_id), None)
    preview = stored.get("preview") if stored else None
    if stored is None or preview_problems(preview):
        return  # builtin, or malformed beyond contrast (never written by the routes)
    _check_contrast(preview, lambda first: f"theme {theme_id!r} would not read ({first}): fix its preview "
                                           f"with PATCH /v1/display/themes/{theme_id} before selecting it")


def _check_contrast(preview: dict, message: Any) -> None:
    """400 ``invalid_display_theme_preview`` naming every unreadable pair of a well-formed
    ``preview``; ``message(first)`` words it around the first pair."""
    unreadable = contrast_problems(preview)
    if unreadable:
        first = next(iter(unreadable.values()))[0]
        raise ApiError(400, "invalid_display_theme_preview", message(first), {"preview": unreadable})


class ThemesResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        resp.media = {"items": all_themes(self.host.services[SETTINGS])}

    def on_post(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = req.context.body
        service = self.host.services[SETTINGS]
        preview = _check_preview(body["preview"])
        themes = custom_themes(service)
        if len(themes) >= MAX_CUSTOM_THEMES:
            raise ApiError(400, "display_theme_limit_reached",
                           f"at most {MAX_CUSTOM_THEMES} custom themes; delete one first")
        theme = {"id": new_theme_id(), "label": body["label"], "preview": preview}
        service.set(CUSTOM_THEMES_KEY, themes + [theme])
        resp.status = falcon.HTTP_201
        resp.media = {**theme, "builtin": False}


class ThemeResource:
    def __init__(self, host: Any):
        self.host = host

    def _find(self, theme_id: str) -> tuple[list[dict], int]:
        if theme_id in BUILTIN_THEMES:
            raise ApiError(400, "display_theme_not_custom", f"{theme_id!r} is a builtin theme and cannot change")
        themes = custom_themes(self.host.services[SETTINGS])
        for index, theme in enumerate(themes):
            if theme["id"] == theme_id:
                return themes, index
        raise ApiError(404, "display_theme_not_found", "no such theme")

    def on_get(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        # builtin or custom, as the list shows it (CONTRACT: a single-row GET per collection)
        theme = next((t for t in all_themes(self.host.services[SETTINGS]) if t["id"] == id), None)
        if theme is None:
            raise ApiError(404, "display_theme_not_found", "no such theme")
        resp.media = theme

    def on_patch(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        themes, index = self._find(id)
        body = req.context.body
        if not body:
            raise validation_failed({"_schema": ["send label and/or preview"]})
        theme = dict(themes[index])
        if "preview" in body:
            theme["preview"] = _check_preview(body["preview"])
        if "label" in body:
            theme["label"] = body["label"]
        themes[index] = theme
        self.host.services[SETTINGS].set(CUSTOM_THEMES_KEY, themes)
        resp.media = {**theme, "builtin": False}

    def on_delete(self, req: falcon.Request, resp: falcon.Response, id: str) -> None:
        themes, index = self._find(id)
        service = self.host.services[SETTINGS]
        del themes[index]
        service.set(CUSTOM_THEMES_KEY, themes)
        if service.is_stored("display_theme_id") and service.get("display_theme_id") == id:
            service.set("display_theme_id", DEFAULT_THEME_ID)
        row = self.host.db.KeyValue.get(key=THEME_KEY_VALUE)
        if row is not None and row.value == id:
            row.value = DEFAULT_THEME_ID
        resp.media = {}


# ---- key-values ------------------------------------------------------------------------

KeyValueSchema = record("KeyValueSchema", key=fields.String, value=fields.String)


KeyValueList = record("KeyValueList", items=fields.List(fields.Nested(KeyValueSchema)))


class KeyValuePut(StorableSchema):
    key = fields.String(allow_none=True, metadata={"description": f"1-{KEY_MAX} characters (key_required, key_too_long)"})
    value = fields.String(metadata={"description": f"at most {VALUE_MAX} characters (required)"})


class KeyQuery(StorableSchema):
    key = fields.String(metadata={"description": "the key to delete (required)"})


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not key.strip():
        raise ApiError(400, "key_required", "a non-empty key is required")
    if len(key) > KEY_MAX:
        raise ApiError(400, "key_too_long", f"keys are at most {KEY_MAX} characters")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in key):
        raise validation_failed({"key": ["control characters are not allowed"]})
    return key


def _check_scope(req: falcon.Request, key: Any) -> None:
    """403 for a caller that holds ``settings.write`` only for other keys (the operation is scoped)."""
    principal = req.context.principal
    if not principal.may(SETTINGS_WRITE, key):
        allowed = ", ".join(sorted(principal.scopes.get(SETTINGS_WRITE, ())))
        raise ApiError(403, "forbidden", f"this key may write only the key-values {allowed}")


class KeyValuesResource:
    def __init__(self, host: Any):
        self.host = host

    def on_get(self, req: falcon.Request, resp: falcon.Response) -> None:
        rows = self.host.db.KeyValue.select().order_by(lambda kv: kv.key)
        items = [{"key": row.key, "value": row.value} for row in rows]
        items.sort(key=lambda item: item["key"])  # codepoint order on every database collation
        resp.media = {"items": items}

    def on_put(self, req: falcon.Request, resp: falcon.Response) -> None:
        body = req.context.body
        _check_scope(req, body.get("key"))
        key = _check_key(body.get("key"))
        value = body.get("value")
        if value is None:
            raise validation_failed({"value": ["required"]})
        if len(value) > VALUE_MAX:
            raise ApiError(400, "value_too_long", f"values are at most {VALUE_MAX} characters")
        if "\x00" in value:
            raise validation_failed({"value": ["NUL characters are not allowed"]})
        self.host.services[SETTINGS].put_key_value(key, value)
        resp.media = {"key": key, "value": value}

    def on_delete(self, req: falcon.Request, resp: falcon.Response) -> None:
        key = req.context.query.get("key")
        _check_scope(req, key)
        if not isinstance(key, str) or not key.strip():
            raise ApiError(400, "key_required", "query parameter key is required")
        if not self.host.services[SETTINGS].delete_key_value(key):
            raise ApiError(404, "not_found", "no such key")
        resp.media = {}


def routes(host: Any) -> list[Route]:
    return [
        Route("/v1/display/settings", SettingsResource(host), {
            "GET": Operation(AUTHENTICATED, "display settings", response=SettingsSchema, tags=["settings"]),
            "PUT": Operation(SETTINGS_WRITE, "change display settings (partial)", body=SettingsUpdate,
                             response=SettingsSchema, tags=["settings"], publishes=PUBLISHES),
        }),
        Route("/v1/display/themes", ThemesResource(host), {
            "GET": Operation(AUTHENTICATED, "builtin and custom themes", response=ThemeList, tags=["themes"]),
            "POST": Operation(SETTINGS_WRITE, "create a custom theme", body=ThemeCreate, response=ThemeSchema,
                              status=201, tags=["themes"], publishes=PUBLISHES),
        }),
        Route("/v1/display/themes/{id}", ThemeResource(host), {
            "GET": Operation(AUTHENTICATED, "one theme, builtin or custom", response=ThemeSchema, tags=["themes"]),
            "PATCH": Operation(SETTINGS_WRITE, "change a custom theme", body=ThemePatch, response=ThemeSchema,
                               tags=["themes"], publishes=PUBLISHES),
            "DELETE": Operation(SETTINGS_WRITE, "delete a custom theme", response=EmptySchema,
                                tags=["themes"], publishes=PUBLISHES),
        }),
        Route("/v1/config/key-values", KeyValuesResource(host), {
            "GET": Operation(AUTHENTICATED, "every key-value, sorted by key", response=KeyValueList,
                             tags=["key-values"]),
            "PUT": Operation(SETTINGS_WRITE, "create or replace a key-value", body=KeyValuePut,
                             response=KeyValueSchema, tags=["key-values"], publishes=PUBLISHES,
                             scoped=True),
            "DELETE": Operation(SETTINGS_WRITE, "delete a key-value", query=KeyQuery, response=EmptySchema,
                                tags=["key-values"], publishes=PUBLISHES, scoped=True),
        }),
    ]
