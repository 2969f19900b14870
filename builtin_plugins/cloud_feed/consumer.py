"""The server-sent-events consumer: one background thread, reconnecting with backoff.

httpx-sse is used because httpx is already the project's HTTP client (timeouts, TLS,
streaming) and httpx-sse only adds the SSE framing (``event``/``data``/``id``/``retry``
lines, comments), which is what the spec of the format makes easy to get subtly wrong.
"""

from __future__ import annotations

import json
import logging
import random
import threading
from typing import Any
from urllib.parse import quote

from builtin_plugins.cloud_feed.kinds import FEED, FeedError
from builtin_plugins.cloud_feed.store import FeedStore

log = logging.getLogger(__name__)

BACKOFF_MIN_S = 1.0
BACKOFF_MAX_S = 60.0
READ_TIMEOUT_S = 90.0  # a feed silent (not even a comment) this long is treated as dropped


def backoff_delay(attempt: int, floor_s: float = BACKOFF_MIN_S, ceiling_s: float = BACKOFF_MAX_S,
                  rand: random.Random | Any = random) -> float:
    """The wait before reconnect number ``attempt`` (0 after a connection that delivered
    events): random in [step, 2 * step] with ``step = floor_s * 2 ** attempt``, so never under
    the floor, doubling per failed attempt, and jittered so displays do not reconnect in step.
    Capped at ``ceiling_s``: once the range reaches it, the wait is random in
    [ceiling_s / 2, ceiling_s] (still jittered, never above the ceiling)."""
    step = floor_s * (2 ** min(max(0, attempt), 32))
    low, high = min(step, ceiling_s / 2), min(2 * step, ceiling_s)
    return rand.uniform(max(low, floor_s), max(high, floor_s))


class FeedConsumer:
    def __init__(self, host: Any, telemetry: Any, floor_s: float = BACKOFF_MIN_S):
        settings = host.settings.plugin_values("cloud_feed")
        self.host = host
        self.telemetry = telemetry
        self.store = FeedStore(host)
        self.url = f"{settings.saas_api_url.rstrip('/')}/v1/displays/{settings.saas_display_id}/feed"
        self._key = settings.saas_api_key
        self.floor_s = floor_s
        self.connected = False
        self.last_event_at_ms: int | None = None
        self.blobs_url = f"{settings.saas_api_url.rstrip('/')}/v1/displays/{settings.saas_display_id}/blobs/"
        self.media_cached = 0  # files the feed named, downloaded and stored
        self.media_failed = 0  # ... refused or failed (each logged with its reason)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._client: httpx.Client | None = None

    # -- health ------------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        return {"connected": self.connected, "last_event_at_ms": self.last_event_at_ms,
                "media_cached": self.media_cached, "media_failed": self.media_failed}

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="saas-feed", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        client = self._client
        if client is not None:
            try:
                client.close()  # unblocks a read in progress
            except Exception:  # noqa: BLE001 - closing from another thread may race the reader
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def _log(self, channel: str, message: str) -> None:
        if self.telemetry is not None:
            self.telemetry.add(channel, message, FEED)
        getattr(log, "warning" if channel != "info" else "info")("saas feed: %s", message)

    # -- the loop ----------------------------------------------------------------------------
    def _run(self) -> None:
        import httpx  # imported on first use: the serve process starts without it (issue 29, RSS)

        attempt = 0
        while not self._stop.is_set():
            received = False
            try:
                received = self._connect_once()
                if not self._stop.is_set():
                    self._log("warning", "feed connection closed by the server")
            except httpx.HTTPStatusError as exc:
                self._log("error", f"feed answered HTTP {exc.response.status_code}")
            except (httpx.HTTPError, OSError) as exc:
                if not self._stop.is_set():
                    self._log("warning", f"feed connection failed: {type(exc).__name__}: {exc}"[:500])
            except Exception as exc:  # noqa: BLE001 - the thread must outlive any surprise
                self._log("error", f"feed consumer error: {type(exc).__name__}: {exc}"[:500])
            finally:
                self.connected = False
            attempt = 0 if received else attempt + 1
            delay = backoff_delay(attempt, self.floor_s)
            self._log("info", f"reconnecting in {delay:.2f} s (attempt {attempt})")
            self._stop.wait(delay)

    def _connect_once(self) -> bool:
        """One connection; True when at least one event arrived (resets the backoff)."""
        headers = {"Accept": "text/event-stream", "Authorization": f"Bearer {self._key}",
                   "Cache-Control": "no-cache"}
        last = self.store.last_event_id()
        if last:
            headers["Last-Event-ID"] = last
        received = False
        import httpx
        from httpx_sse import connect_sse

        timeout = httpx.Timeout(10.0, read=READ_TIMEOUT_S)
        with httpx.Client(timeout=timeout) as client:
            self._client = client
            try:
                with connect_sse(client, "GET", self.url, headers=headers) as source:
                    source.response.raise_for_status()
                    self.connected = True
                    self._log("info", "feed connected" + (f" (resuming after event {last})" if last else ""))
                    for sse in source.iter_sse():
                        if self._stop.is_set():
                            break
                        if not sse.data:
                            # The SSE spec dispatches no event whose data is empty; httpx-sse keeps
                            # the last id and so turns each keep-alive comment after an event into
                            # one. Not an event: not logged, last_event_at_ms stays.
                            continue
                        received = True
                        self._handle(sse.event, sse.data, sse.id or None)
            finally:
                self._client = None
        return received

    def _handle(self, event: str, data: str, event_id: str | None) -> None:
        self.last_event_at_ms = self.host.clock.now_ms()
        try:
            try:
                payload = json.loads(data)
            except ValueError as exc:
                raise FeedError(f"{event}: data is not JSON ({exc})") from None
            summary = self.store.apply(event, payload, event_id)
        except FeedError as exc:
            self._log("warning", f"skipped event {event_id or '(no id)'}: {exc}")
            return
        self._log("info", f"event {event_id or '(no id)'}: {summary}")
        if event in ("upsert", "snapshot"):
            self._fetch_media(payload["items"] if event == "snapshot" else [payload])

    # -- media -------------------------------------------------------------------------------
    def _fetch_media(self, items: list[Any]) -> None:
        """Download each file the applied items name (their kind's ``FeedBlob``) that the display
        does not hold yet, stored under the key the feed gave; refused past the owner's upload
        limits. A failure leaves the row without its picture and is logged; the next event
        naming the key tries again."""
        import httpx

        for item in items:
            content = self.store.kinds.get(item.get("kind"))
            blob = content.feed.blob if content is not None else None
            key = item.get(blob.attribute) if blob is not None else None
            if not isinstance(key, str) or not key or self.host.blobs.get(key) is not None:
                continue
            try:
                self.host.blobs.path_for(key)  # a key the store can hold (raises ValueError)
                content_type, data = self._download(key, blob)
                if blob.check is not None:
                    blob.check(data, content_type)
                self.host.blobs.put(key, data, content_type)
            except (httpx.HTTPError, OSError, ValueError) as exc:
                self.media_failed += 1
                self._log("warning", f"media {key[:200]} not stored: {type(exc).__name__}: {exc}"[:500])
                continue
            self.media_cached += 1
            self._log("info", f"media {key} stored ({len(data)} bytes, {content_type})")

    def _download(self, key: str, blob: Any) -> tuple[str, bytes]:
        import httpx

        headers = {"Authorization": f"Bearer {self._key}"}
        with httpx.Client(timeout=httpx.Timeout(10.0, read=60.0)) as client:
            with client.stream("GET", self.blobs_url + quote(key, safe="/"), headers=headers) as response:
                response.raise_for_status()
                content_type = response.headers.get("content-type", "").split(";")[0].strip().lower()
                if content_type not in blob.types:
                    raise ValueError(f"content type {content_type or '(none)'} is not one of {', '.join(blob.types)}")
                too_large = ValueError(f"larger than {blob.max_bytes} bytes")
                declared = response.headers.get("content-length", "")
                if declared.isdigit() and int(declared) > blob.max_bytes:
                    raise too_large
                data = bytearray()
                for chunk in response.iter_bytes():
                    data += chunk
                    if len(data) > blob.max_bytes:
                        raise too_large
        return content_type, bytes(data)
