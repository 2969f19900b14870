"""``GET /bff/v1/releases/{product}``: the latest release from ``SVC_CONTROLLER_RELEASES_URL``.

The release list is JSON: an array of ``{product, version, published_at, download_url}``
(or an object holding it under ``releases`` or ``items``). Entries missing a field are
skipped. The latest of a product is the one with the greatest ``published_at`` (ISO 8601
text; ties broken by version). The list is cached :data:`CACHE_MS` (10 minutes) on the
controller's clock; unset, unreachable or unreadable: 503 ``releases_unavailable``. A
product the list does not name: 404 ``not_found``. Certificates are verified (this is
not a display).
"""
from __future__ import annotations

import logging
import threading
from typing import Any

import httpx

from svc_host.http.errors import ApiError

log = logging.getLogger("svc_controller.releases")

CACHE_MS = 10 * 60 * 1000
FETCH_TIMEOUT_S = 10
LIST_MAX_BYTES = 4 * 1024 * 1024
FIELDS = ("product", "version", "published_at", "download_url")


class Releases:
    def __init__(self, url: str | None, now_ms: Any):
        self.url = url
        self.now_ms = now_ms
        self._cached: tuple[int, list[dict]] | None = None
        self._lock = threading.Lock()

    def _fetch(self) -> list[dict]:
        if not self.url:
            raise unavailable("SVC_CONTROLLER_RELEASES_URL is not set")
        try:
            with httpx.Client(timeout=FETCH_TIMEOUT_S, follow_redirects=True) as client:
                with client.stream("GET", self.url, headers={"Accept": "application/json"}) as response:
                    if response.status_code != 200:
                        raise unavailable(f"the release list answered {response.status_code}")
                    body = b""
                    for chunk in response.iter_bytes():
                        body += chunk
                        if len(body) > LIST_MAX_BYTES:
                            raise unavailable("the release list is too large")
            data = httpx.Response(200, content=body).json()
        except httpx.HTTPError as exc:
            raise unavailable(f"the release list is unreachable ({type(exc).__name__})") from None
        except ValueError:
            raise unavailable("the release list is not JSON") from None
        if isinstance(data, dict):
            data = data.get("releases", data.get("items"))
        if not isinstance(data, list):
            raise unavailable("the release list is not a JSON list")
        return [{f: item[f] for f in FIELDS} for item in data
                if isinstance(item, dict) and all(isinstance(item.get(f), str) and item[f] for f in FIELDS)]

    def latest(self, product: str) -> dict:
        now = self.now_ms()
        with self._lock:
            if self._cached is None or self._cached[0] <= now:
                try:
                    self._cached = (now + CACHE_MS, self._fetch())
                except ApiError as exc:
                    log.warning("releases: %s", exc.message)
                    raise
            items = self._cached[1]
        matching = [item for item in items if item["product"] == product]
        if not matching:
            raise ApiError(404, "not_found", f"no release of {product!r} is published")
        return max(matching, key=lambda item: (item["published_at"], _version_key(item["version"])))


def _version_key(version: str) -> tuple:
    return tuple(int(part) if part.isdigit() else 0 for part in version.lstrip("v").split("."))


def unavailable(message: str) -> ApiError:
    return ApiError(503, "releases_unavailable", message)
