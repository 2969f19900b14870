"""Driven-canvas scenarios of the adoption feature's screens (run by :func:`tests.display.driven.run`
as ``"tests.adoption.screens:<name>"``): the welcome slide of a display with no program, the card of
two pending pairing requests, and the welcome gone once a slide is added over REST."""
from __future__ import annotations

from typing import Any
from hookspecs.services import ALERTS

PUBLIC = ""  # no key: a newcomer's request


def drawn(widget: Any) -> list[dict]:
    """Every label under ``widget`` with text, top down: its text, role, window rectangle
    ``[x, y, width, height]``, font size and the size of the text it drew (its texture)."""
    from tests.display.driven import window_rect

    from kivy.core.text import Label as CoreLabel

    def extent(label: Any) -> list[float]:  # the text on one line at its font size, as drawn
        core = CoreLabel(text=label.text, font_size=label.font_size, font_name=label.font_name, bold=label.bold,
                         padding=label.padding)
        return [round(v, 1) for v in core.render()]

    labels = [w for w in widget.walk(restrict=True) if getattr(w, "text", "") and hasattr(w, "texture_size")]
    seen = [{"text": w.text, "role": getattr(w, "role", ""), "rect": window_rect(w), "font_px": round(w.font_size, 1),
             "extent": extent(w), "icon": hasattr(w, "icon_name")} for w in labels]
    return sorted(seen, key=lambda item: -(item["rect"][1] + item["rect"][3]))


def first_start(canvas: Any, job: dict) -> dict:
    """The server announces where it listens (the server's own ``_log_listening`` on this data dir's
    certificate) and the adoption plugin's ``serving`` hook runs, as ``svc-display serve`` does; then
    the welcome slide, two public pairing requests (a frame apart), the card, the codes read from the
    card confirmed newest first, and a slide added over REST."""
    from kivy.core.window import Window

    from hookspecs.services import LISTENING
    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient
    from svc_host.server import _log_listening
    from svc_host.tls import ensure_certificate
    from tests.display.driven import window_rect

    host = canvas.host
    out = job.get("out")
    cert, _key = ensure_certificate(host.settings)
    host.services[LISTENING] = _log_listening("https", "0.0.0.0", 8443, "uvicorn", cert)
    host.plugins.call_each("serving", only=["adoption"], host=host)
    canvas.settle()
    canvas.frame(0.5)
    welcome = canvas.layer("welcome").widget
    seen: dict[str, Any] = {"window": list(Window.size), "urls": list(host.services[LISTENING].urls),
                            "fingerprint": host.services[LISTENING].fingerprint,
                            "welcome_rect": window_rect(welcome),
                            "welcome": drawn(welcome)}
    if out:
        canvas.png(f"{out}/first-start.png")

    api = ApiClient(host, issue_key(host, "admin"))
    for identifier, role in job["requests_to_pair"]:
        answer = api.post("/v1/adoption/request", key=PUBLIC, json={"identifier": identifier, "role": role})
        assert answer.status_code == 200, answer.text
        canvas.frame(1.0)  # a second apart: the second is the newer
    canvas.settle()
    adoption = canvas.layer("adoption").widget
    card = adoption.children[0] if adoption.children else None
    seen["card_rect"] = window_rect(card) if card is not None else None
    seen["card"] = drawn(adoption)
    seen["welcome_beside_card"] = window_rect(welcome)
    alerts = canvas.layer("alerts").widget
    seen["alert_cards"] = [window_rect(c) for stack in alerts.children for c in stack.children]
    seen["active_alerts"] = [a["source"] for a in host.services[ALERTS].active()]
    if out:
        canvas.png(f"{out}/pairing.png")

    codes = [item["text"] for item in seen["card"] if item["role"] == "challenge"]
    names = [item["text"] for item in seen["card"] if item["role"] == "requester"]
    seen["confirms"] = [api.post("/v1/adoption/confirm", key=PUBLIC,
                                 json={"identifier": name, "challenge_code": code}).status_code
                        for name, code in zip(names, codes)]
    canvas.settle()
    canvas.frame(0.5)
    seen["card_after"] = len(adoption.children)

    answer = api.post("/v1/screens", json={"id": "first", "screen_type": "clock", "dwell_seconds": 60,
                                                "config_json": {"style": "digital"}})
    assert answer.status_code < 300, answer.text
    canvas.settle()
    for _ in range(4):
        canvas.frame(0.25)
    slides = canvas.layer("slides")
    seen["after_slide"] = {"welcome": len(welcome.children),
                           "slide": slides.current["row"]["id"] if slides.current else None}
    return seen
