"""A notification when a screen goes dark (docs/controller.md "Webhook").

When a display has been unreachable or degraded for ``SVC_CONTROLLER_ALERT_AFTER_SECONDS``
(the poller decides, :meth:`svc_controller.fleet.Fleet.record`), the controller POSTs
``{"event": "display.down", "display": <item>, "sent_at_ms": ...}`` to
``SVC_CONTROLLER_WEBHOOK_URL``, and ``display.recovered`` when it is well again. The body is
signed: ``X-Svc-Signature: sha256=<hex HMAC-SHA256 of the raw body>`` with
``SVC_CONTROLLER_WEBHOOK_SECRET`` (unsigned when unset). An answer other than 2xx, or none,
is retried :data:`ATTEMPTS` times in all, waiting 1, 2, 4... seconds in between.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
import logging
from typing import Any, Callable

import httpx

log = logging.getLogger("svc_controller.webhook")

ATTEMPTS = 5
SIGNATURE_HEADER = "X-Svc-Signature"


def signature(secret: str, body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


class Webhook:
    def __init__(self, url: str, secret: str | None, alert_after_s: int, now_ms: Callable[[], int],
                 first_wait_s: float = 1.0):
        self.url = url
        self.secret = secret
        self.alert_after_ms = alert_after_s * 1000
        self.now_ms = now_ms
        self.first_wait_s = first_wait_s

    async def send(self, client: httpx.AsyncClient, event: str, item: dict) -> bool:
        """POST the event, retried; True once the receiver answered 2xx."""
        body = json.dumps({"event": event, "display": item, "sent_at_ms": self.now_ms()},
                          separators=(",", ":")).encode()
        headers = {"Content-Type": "application/json", "User-Agent": "svc-controller"}
        if self.secret:
            headers[SIGNATURE_HEADER] = signature(self.secret, body)
        wait = self.first_wait_s
        for attempt in range(1, ATTEMPTS + 1):
            why: Any
            try:
                response = await client.post(self.url, content=body, headers=headers)
                if 200 <= response.status_code < 300:
                    log.info("webhook %s for display %s delivered", event, item["id"])
                    return True
                why = f"answered {response.status_code}"
            except httpx.HTTPError as exc:
                why = type(exc).__name__
            if attempt < ATTEMPTS:
                log.warning("webhook %s for display %s: %s; attempt %d of %d in %g s", event, item["id"], why,
                            attempt + 1, ATTEMPTS, wait)
                await asyncio.sleep(wait)
                wait *= 2
            else:
                log.error("webhook %s for display %s not delivered after %d attempts: %s", event, item["id"],
                          ATTEMPTS, why)
        return False
