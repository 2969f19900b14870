"""CORS as Falcon middleware (spec 5.11-5.12).

The public adoption routes accept private-network origins (:mod:`.policy`); every other
route accepts only stored origins. An allowed preflight is answered here with 204 before
routing and auth; a denied request simply gets no ``Access-Control-Allow-Origin``.
"""
from __future__ import annotations

from typing import Any

import falcon

from svc_host.kit.rest import normalize_origin

PUBLIC_ADOPTION_PATHS = frozenset({"/v1/adoption/request", "/v1/adoption/confirm"})
ALLOW_METHODS = "GET,POST,PATCH,PUT,DELETE,OPTIONS"
ALLOW_HEADERS = "Content-Type, Authorization"


class CorsMiddleware:
    def __init__(self, store: Any, policy: Any):
        self.store = store
        self.policy = policy

    def _allowed(self, req: falcon.Request) -> str | None:
        """The Origin to mirror when the request's origin is allowed for its path."""
        raw = req.get_header("Origin")
        if not raw:
            return None
        origin = normalize_origin(raw)
        if origin is None:
            return None
        path = req.path.rstrip("/") or "/"
        if path in PUBLIC_ADOPTION_PATHS:
            allowed = self.policy.allows(origin)
        else:
            allowed = self.store.is_allowed(origin)
        return raw if allowed else None

    def process_request(self, req: falcon.Request, resp: falcon.Response) -> None:
        req.context.cors_origin = None
        if req.get_header("Origin"):
            resp.append_header("Vary", "Origin")
        origin = self._allowed(req)
        if origin is None:
            return
        req.context.cors_origin = origin
        if req.method == "OPTIONS":
            resp.status = falcon.HTTP_204
            resp.complete = True

    def process_response(self, req: falcon.Request, resp: falcon.Response, resource: Any,
                         req_succeeded: bool) -> None:
        origin = getattr(req.context, "cors_origin", None)
        if origin is None:
            return
        resp.set_header("Access-Control-Allow-Origin", origin)
        resp.set_header("Access-Control-Allow-Methods", ALLOW_METHODS)
        resp.set_header("Access-Control-Allow-Headers", ALLOW_HEADERS)
