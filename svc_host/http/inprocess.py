"""An in-process REST client of a host, and API keys issued through the contract.

The host's own (the scene gallery writes its rows through REST so change events fire as in
production); the authors' kit re-exports it as `svc_display.testing.clients`."""
from __future__ import annotations

import uuid
from typing import Any


def issue_key(host: Any, role: str = "admin", identifier: str | None = None) -> str:
    """A fresh API key of ``role`` for ``identifier`` (a random one by default).

    Issued by the ``clients`` plugin through its typed service (``hookspecs.services.CLIENT_KEYS``),
    so the key is stored as a hash like any other; a host without that plugin has no keys.
    """
    from hookspecs.services import CLIENT_KEYS, require

    return require(host, CLIENT_KEYS).issue(identifier or f"{role}-{uuid.uuid4().hex[:6]}", role)


class ApiClient:
    """A ``falcon.testing`` client of one host's REST app, sending one API key by default.

    ``get/post/put/patch/delete(path, key=None, **kwargs)`` take ``falcon.testing``'s
    ``simulate_request`` arguments (``params``, ``json``, ``body``, ``headers``); ``key=""``
    sends no key, another string sends that one. Answers are ``falcon.testing.Result``
    objects (``status_code``, ``json``, ``text``, ``headers``).
    """

    def __init__(self, host: Any, key: str | None = None):
        import falcon.testing

        from svc_host.http.app import create_app

        self.host = host
        self.key = key
        # One app per host for its clients: building one costs about 35 ms of CPU (falcon's
        # add_route for each of a hundred routes), and a test often makes several clients of one
        # host (an admin's, a viewer's, one without a key). What the app serves is fixed when
        # the host is built (its routes, middleware and operations).
        app = host.__dict__.get("_inprocess_app")
        if app is None:
            app = host.__dict__["_inprocess_app"] = create_app(host, defer_openapi=True)
        self.client = falcon.testing.TestClient(app)

    def request(self, method: str, path: str, key: str | None = None, **kwargs: Any) -> Any:
        headers = dict(kwargs.pop("headers", {}) or {})
        key = self.key if key is None else key
        if key:
            headers.setdefault("Authorization", f"Bearer {key}")
        return self.client.simulate_request(method, path, headers=headers, **kwargs)

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> Any:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> Any:
        return self.request("PUT", path, **kwargs)

    def patch(self, path: str, **kwargs: Any) -> Any:
        return self.request("PATCH", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> Any:
        return self.request("DELETE", path, **kwargs)
