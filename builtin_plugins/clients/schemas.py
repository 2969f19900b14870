"""Request and response schemas of the client routes, shared with adoption."""
from __future__ import annotations

from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from hookspecs.records import record
from builtin_plugins.clients.keys import IDENTIFIER_MAX, ClientError, validate_identifier
from svc_host.kit.security import ROLES


# Characters an identifier may hold: no control characters, no line/paragraph separators.
_ALLOWED = r"[^\x00-\x1f\x7f-\x9f\u2028\u2029]"
IDENTIFIER_PATTERN = f"^{_ALLOWED}*(?=\\S){_ALLOWED}+$"


class Identifier(fields.String):
    """A client label: 1-128 characters, at least one not a space, no control characters; trimmed."""

    def __init__(self, **kwargs: Any):
        super().__init__(
            validate=[validate.Length(min=1, max=IDENTIFIER_MAX),
                      validate.Regexp(IDENTIFIER_PATTERN, error="must hold a visible character and no control "
                                                                  "characters or line separators")],
            metadata={"description": f"client label, 1-{IDENTIFIER_MAX} characters; surrounding spaces are "
                                     "trimmed"},
            **kwargs)

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> str:
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return validate_identifier(text)
        except ClientError as exc:
            raise ValidationError(str(exc)) from None


def role_field(**kwargs: Any) -> fields.String:
    return fields.String(validate=validate.OneOf(ROLES), metadata={"enum": list(ROLES)}, **kwargs)


class AdoptionClientCreateBody(Schema):
    identifier = Identifier(required=True)
    role = role_field(load_default="operator")


AdoptionClientSchema = record("AdoptionClientSchema", id=fields.String, identifier=fields.String, role=fields.String,
                              masked_api_key=fields.String, created_at_ms=fields.Integer)


AdoptionClientListSchema = record("AdoptionClientListSchema", items=fields.List(fields.Nested(AdoptionClientSchema)))


# A key handed out once: ``{api_key, identifier, role, permissions}``.
AdoptionGrantSchema = record("AdoptionGrantSchema", api_key=fields.String, identifier=fields.String, role=fields.String,
                             permissions=fields.List(fields.String()))


AdoptionCreatedClientSchema = record("AdoptionCreatedClientSchema", AdoptionGrantSchema, id=fields.String,
                                     masked_api_key=fields.String, created_at_ms=fields.Integer)


AdoptionSessionSchema = record("AdoptionSessionSchema", identifier=fields.String, role=fields.String,
                               permissions=fields.List(fields.String()))
