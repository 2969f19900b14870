"""Errors in the CONTRACT shape: ``{"code", "message", "details"?}``."""
from __future__ import annotations

import logging
from typing import Any, Mapping

import falcon

log = logging.getLogger("svc_host.http")

# Codes for errors Falcon raises itself (routing, headers), by status.
_FALCON_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    406: "not_acceptable",
    409: "conflict",
    411: "length_required",
    413: "payload_too_large",
    414: "uri_too_long",
    415: "unsupported_media_type",
    429: "rate_limited",
    431: "headers_too_large",
}


class ApiError(Exception):
    """Raise from a responder to answer with a CONTRACT-shaped error.

    Raised inside the request's ``db_session``, it also rolls back every change the
    request made, so a rejected request changes no stored state.
    """

    def __init__(self, status: int, code: str, message: str, details: Mapping[str, Any] | None = None,
                 headers: Mapping[str, str] | None = None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.headers = dict(headers or {})


def not_found(what: str = "resource") -> ApiError:
    return ApiError(404, "not_found", f"{what} not found")


def conflict(message: str, code: str = "conflict") -> ApiError:
    return ApiError(409, code, message)


def validation_failed(details: Mapping[str, Any], message: str = "request validation failed") -> ApiError:
    return ApiError(400, "validation_failed", message, dict(details))


def error_body(code: str, message: str, details: Mapping[str, Any] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = dict(details)
    return body


def _render(resp: falcon.Response, status: int, body: dict[str, Any], headers: Mapping[str, str]) -> None:
    resp.status = status
    resp.content_type = falcon.MEDIA_JSON
    resp.media = body
    for name, value in headers.items():
        resp.set_header(name, value)


def handle_api_error(req: falcon.Request, resp: falcon.Response, ex: ApiError, params: Any) -> None:
    _render(resp, ex.status, error_body(ex.code, ex.message, ex.details), ex.headers)


def handle_http_error(req: falcon.Request, resp: falcon.Response, ex: falcon.HTTPError, params: Any) -> None:
    status = ex.status_code
    code = _FALCON_CODES.get(status, "error" if status < 500 else "internal_error")
    message = ex.title or code.replace("_", " ")
    if ex.description:
        message = f"{message}: {ex.description}"
    if status == 404:
        message = "no such resource"
    _render(resp, status, error_body(code, message), dict(ex.headers or {}))


def handle_unexpected(req: falcon.Request, resp: falcon.Response, ex: Exception, params: Any) -> None:
    request_id = getattr(req.context, "request_id", "-")
    log.exception("internal error in %s %s (request id %s)", req.method, req.path, request_id)
    _render(resp, 500, error_body("internal_error", f"internal error (request id {request_id})"), {})
