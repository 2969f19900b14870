"""The CONTRACT error answers of the connection layer: a whole HTTP/1.1 response written straight
to a transport (:func:`raw_response`), or sent through ASGI (:func:`respond`)."""
from __future__ import annotations

import json
from typing import Any

from svc_host.http.errors import error_body

RETRY_AFTER_SECONDS = 2  # what a refused client is told to wait (429 and 503 of this layer)

_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 408: "Request Timeout",
            413: "Content Too Large", 414: "URI Too Long", 429: "Too Many Requests",
            431: "Request Header Fields Too Large", 503: "Service Unavailable"}


def json_error(status: int, code: str, message: str) -> tuple[list[tuple[bytes, bytes]], bytes]:
    retry = status in (429, 503)
    details = {"retry_after_seconds": RETRY_AFTER_SECONDS} if retry else None
    body = json.dumps(error_body(code, message, details))
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close")]
    if retry:  # the shape of svc_host/rest/ratelimit.py's 429s
        headers.append((b"retry-after", str(RETRY_AFTER_SECONDS).encode()))
    return headers, body.encode()


def raw_response(status: int, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response, for answers written straight to a transport."""
    headers, body = json_error(status, code, message)
    head = [f"HTTP/1.1 {status} {_REASONS.get(status, 'Error')}\r\n".encode()]
    head += [name + b": " + value + b"\r\n" for name, value in headers]
    return b"".join(head) + b"\r\n" + body



async def respond(send: Any, status: int, code: str, message: str) -> None:
    """Answer with a CONTRACT error and close the connection (its unread bytes are not ours to parse)."""
    headers, body = json_error(status, code, message)
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
