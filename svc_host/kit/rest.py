"""The REST kit: the building blocks of the routes a plugin serves, and the CONTRACT's error answers.

A face: the host keeps the code in :mod:`svc_host.rest` and :mod:`svc_host.http.errors` (the host's
own routes and the controller use them too); a plugin imports these names from here.

- errors: :class:`ApiError` and the ``{code, message, details?}`` answers (``not_found``,
  ``conflict``, ``validation_failed``);
- marshmallow pieces (``PageQuery``, ``JsonObject``, ``StorableSchema``, slugs, client ids) and
  storable text (``Text``, ``no_nul``, ``not_blank``, ``StorableJsonObject``);
- plain rows of one entity (``EntityKind``, ``entity_routes``, ``lookup_id``, ``require_category``,
  ``category_exists``),
  typed rows (``RowKind``, ``typed_routes``, ``list_rows``, ``row_schema``, ``serialize``) and their
  rules (``require_type``, ``validate_config``, ``describe_type``, ``stored_row``);
- commit-or-409 (``committed_or_conflict``, ``commit_quietly``), substring needles, sliding-window
  rate limits, ``Origin`` normalisation and the list cache (``cached_list``).
"""
from svc_host.http.errors import ApiError, conflict, not_found, validation_failed
from svc_host.rest.configurable import (EmptySchema, TypeDescriptorSchema, describe_type, require_type, stored_row,
                                        validate_config)
from svc_host.rest.listcache import cached_list
from svc_host.rest.origins import ORIGIN_MAX, normalize_origin, request_origin
from svc_host.rest.query import substring_needle
from svc_host.rest.ratelimit import SlidingWindowLimiter, client_address, rate_limited
from svc_host.rest.rows import EntityKind, IdSchema, category_exists, entity_routes, lookup_id, require_category
from svc_host.rest.schemas import (CLIENT_ID, SLUG, BooleanText, JsonObject, PageQuery, StorableSchema, StrictBoolean,
                                   client_id, require_some, slug)
from svc_host.rest.text import FORMULA_START, StorableJsonObject, Text, no_nul, not_blank
from svc_host.rest.transactions import commit_quietly, committed_or_conflict
from svc_host.rest.typed_rows import RowKind, list_rows, row_schema, serialize, typed_routes

__all__ = ["ApiError", "conflict", "not_found", "validation_failed",
           "EmptySchema", "TypeDescriptorSchema", "describe_type", "require_type", "stored_row",
           "validate_config", "cached_list", "ORIGIN_MAX", "normalize_origin", "request_origin", "substring_needle",
           "SlidingWindowLimiter", "client_address", "rate_limited",
           "EntityKind", "IdSchema", "category_exists", "entity_routes", "lookup_id", "require_category",
           "CLIENT_ID", "SLUG", "BooleanText", "JsonObject", "PageQuery", "StorableSchema", "StrictBoolean", "client_id",
           "require_some", "slug", "FORMULA_START", "StorableJsonObject", "Text", "no_nul", "not_blank",
           "commit_quietly", "committed_or_conflict", "RowKind", "list_rows", "row_schema", "serialize", "typed_routes"]
