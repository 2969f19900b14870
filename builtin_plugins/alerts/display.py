"""The alerts layer and the ``alerts`` slide (Kivy-only, loaded when a canvas starts).

The layer: alert cards over the slides.

``load`` (loader thread) asks the alerts service for what is active
(``AlertsService.active()``: neither dismissed nor expired, highest priority first) and
keeps the first :data:`MAX_CARDS`; the layer is loaded again when the earliest of them
expires. The layer takes a band at the top of the screen (``claims``: the ``alert`` band of
:class:`hookspecs.render.Layout`, :data:`CARD_HEIGHT` per card): the slides and the overlay panels
lay out below it, nothing is drawn under it. With an alert of the most severe level
(:data:`FULL_SCREEN_SEVERITY`) it takes the whole screen above the ticker and the layers under it
wait. Cards stack from the top of the band, opaque: each a band in its severity's colour with the
severity's icon, the title and the body at the body step (black or white, whichever reads on the
colour) and, with ``qr_payload``, its QR code. The text rule holds on a card: the title is one line (shrunk to the
body's minimum, else it scrolls along its line, the kit's ``ScrollBox``), the body is shown whole as
stored (wrapped at words, shrunk to the body's minimum, else it scrolls up through its part of the
card, the kit's ``ScrollText``); neither is cut or drawn outside its box. ``display_only`` is never drawn here (the
plugin that set it draws what it needs in its own layer, as adoption does).

The ``alerts`` slide (:func:`alerts`) lists what the same service calls active, of at least
``minSeverity`` and of the ``sources`` named, most severe first, then by priority.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from svc_host.kit.contrast import readable_on
from hookspecs.render import RenderContext, Stage, renderer
from hookspecs.services import ALERT_SEVERITIES, ALERTS, PLAYS, service
from svc_host.kit.display import config_number, config_strings, config_text, layer_box, slide_title
from svc_host.kit.display import widgets as _w

log = logging.getLogger("builtin_plugins.alerts")

MAX_CARDS = 3
CARD_HEIGHT = 170.0
"""A card's height in px of a 1080-line landscape screen (``Layout.unit`` scales it)."""
CARD_GAP = 16.0
"""The gap above and between cards, same units."""
PORTRAIT_MOST = 2.0
"""A card on a portrait screen grows, up to this many times :data:`CARD_HEIGHT`, until its title
and its body (narrower, wrapped onto more lines) fit at the body step (:func:`card_heights`)."""
TITLE_LINES = 2
"""A portrait card's title wraps onto this many lines at most (a landscape card's is one line)."""
FULL_SCREEN_SEVERITY = ALERT_SEVERITIES[-1]
"""The most severe level the alerts feature defines (``critical``): its alert takes the whole screen."""
SEVERITY_COLORS = {"critical": (0.85, 0.1, 0.1, 1), "warning": (1.0, 0.7, 0.1, 1), "info": (0.2, 0.6, 1.0, 1)}
SEVERITY_ICONS = {"critical": "error", "warning": "warning", "info": "info"}


@dataclass
class AlertsState:
    alerts: list[dict] = field(default_factory=list)  # the cards, top first

    def due_ms(self) -> int | None:
        expiries = [a["expires_at"] for a in self.alerts if isinstance(a.get("expires_at"), int)]
        return min(expiries) if expiries else None


def active_alerts(host: Any) -> list[dict]:
    """What the alerts service calls active (neither dismissed nor expired), highest priority first."""
    alerts = service(host, ALERTS)
    return list(alerts.active()) if alerts is not None else []


def shown_alerts(host: Any) -> list[dict]:
    """The alerts the layer draws: the first :data:`MAX_CARDS` active ones that no other layer draws
    (``display_only["drawn_by"]`` names the layer that does: the adoption card shows its request)."""
    return [a for a in active_alerts(host) if not (a.get("display_only") or {}).get("drawn_by")][:MAX_CARDS]


def band_height(alerts: list[dict], screen: Any, unit: float, heights: list[float] | None = None) -> float:
    """The height of the alert band for ``alerts`` on ``screen`` (``Rect``): the cards (``heights``
    px, :func:`card_heights`; :data:`CARD_HEIGHT` each by default) and their gaps, the whole screen
    (the layout clamps it above the ticker) with a :data:`FULL_SCREEN_SEVERITY` one."""
    if not alerts:
        return 0.0
    if any(str(a.get("severity", "")).lower() == FULL_SCREEN_SEVERITY for a in alerts):
        return float(screen.height)
    cards = sum(heights) if heights else len(alerts) * CARD_HEIGHT * unit
    return cards + (len(alerts) + 1) * CARD_GAP * unit


def _text_width(context: RenderContext, alert: dict, size: float) -> tuple[float, float]:
    """The icon's box and the text's width on a card of ``alert`` with text ``size`` px (card shares)."""
    card_w = max(1.0, 0.96 * context.size[0])
    icon_w = min(size * 1.5, 0.2 * card_w)  # the icon's box in px: its glyph fits it on any screen
    left = 0.02 + icon_w / card_w
    return icon_w / card_w, (0.8 if alert.get("qr_payload") else 0.95) - left


def card_heights(context: RenderContext, alerts: list[dict], unit: float) -> list[tuple[float, float]]:
    """Each card's height in px and its title's share of it: :data:`CARD_HEIGHT` (times ``unit``) and
    0.48 on a landscape screen; on a portrait one (``context.portrait``, a narrower card whose body
    wraps onto more lines) as high as its title (on up to :data:`TITLE_LINES` lines, else one that
    scrolls) and its wrapped body need at the body step, up to
    :data:`PORTRAIT_MOST` times that (a longer body shrinks to the body's minimum, then scrolls)."""
    base, found = CARD_HEIGHT * unit, []
    size = context.type_px("body")
    for alert in alerts:
        if not context.portrait:
            found.append((base, 0.48))
            continue
        text_w = _text_width(context, alert, size)[1] * 0.96 * context.size[0]
        title = str(alert.get("title", "")) or " "
        _tw, title_h, lines = _w().text_extent({"bold": True}, title, size, text_w)  # on two lines at most
        title_h = title_h if lines <= TITLE_LINES else _w().text_extent({"bold": True}, title, size)[1]
        body = str(alert.get("body", "")).strip()
        body_h = _w().text_extent({}, body, size, text_w)[1] if body else 0.0
        height = min(base * PORTRAIT_MOST, max(base, (title_h + body_h) / 0.86))
        found.append((height, 0.48 if height <= base else min(0.48, title_h / height + 0.03)))
    return found


def alert_card(context: RenderContext, alert: dict, top: float, height_hint: float, scale: float = 1.0,
               title_share: float = 0.48) -> Any:
    """One opaque card (nothing under it shows through) ``height_hint`` of the band high, its top at
    ``top``: a band in the severity's colour (:data:`SEVERITY_COLORS`) with its icon and the text in
    black or white, whichever reads on it, title and body at the body step at least (shrinking only
    to the body's minimum); its text ``scale`` times that (a full-screen card's is larger)."""
    w = _w()
    severity = str(alert.get("severity", "")).lower()
    color = SEVERITY_COLORS.get(severity, SEVERITY_COLORS["warning"])
    ink = readable_on(color)
    card = w.Slide(size_hint=(0.96, height_hint), pos_hint={"center_x": 0.5, "top": top})
    card.add_widget(w.Backdrop([color], size_hint=(1, 1), pos_hint={"x": 0, "y": 0}))
    size = context.type_px("body") * scale
    icon_share, text_width = _text_width(context, alert, size)
    icon_w = icon_share * max(1.0, 0.96 * context.size[0])
    icon = w.icon(SEVERITY_ICONS.get(severity, "warning"), icon_w / 1.5 * 1.3, ink, size_hint=(icon_share, 0.9),
                  pos_hint={"x": 0.01, "center_y": 0.5})
    card.add_widget(icon)
    left = 0.02 + icon_share
    title = w.scroll_box(context, str(alert.get("title", "")), "body", ink, bold=True, halign="left",
                         nominal=size, max_lines=TITLE_LINES if context.portrait else 1,
                         size_hint=(text_width, title_share), pos_hint={"x": left, "top": 0.98})
    card.add_widget(title)  # one line (two in portrait), shrunk to the body's minimum, else scrolled
    card.animate(title)
    body = w.ScrollText(minimum=w.minimum_px(context, "body"), text=str(alert.get("body", "")),
                        font_size=size, color=ink, halign="left",
                        valign="middle", size_hint=(text_width, 0.93 - title_share),
                        pos_hint={"x": left, "y": 0.03})
    card.add_widget(body)  # the whole body, wrapped at words, shrunk to the body's minimum, else scrolled up
    card.animate(body)
    if alert.get("qr_payload"):
        card.add_widget(w.Backdrop([(1, 1, 1, 1)], size_hint=(0.17, 1), pos_hint={"right": 1, "y": 0}))
        card.add_widget(w.ImageFill(w.qr_texture(str(alert["qr_payload"])), size_hint=(0.16, 0.92),
                                    pos_hint={"right": 0.995, "center_y": 0.5}))
    return card


class AlertsLayer:
    def __init__(self, stage: Stage):
        self.stage = stage
        self.host = stage.host
        self.alerts: list[dict] | None = None
        self.heights: list[tuple[float, float]] = []  # each card's (px, title share): card_heights

    @cached_property
    def widget(self) -> Any:
        return layer_box(fill=True)

    def load(self) -> AlertsState:
        return AlertsState(shown_alerts(self.host))

    def claims(self, screen: Any) -> dict[str, float]:
        """The alert band: the cards' height (``Layout.unit`` of ``screen``), all of it for the most
        severe level."""
        from svc_host.kit.display.layout import layout_of

        prefs, ticker = self.stage.preferences, getattr(self.stage.layout, "ticker", None)
        layout = layout_of(screen.width, screen.height, {"ticker": ticker.height if ticker else 0.0},
                           safe_inset=prefs.theme.safe_inset)
        context = prefs.context(self.host, "screen", "alerts", {"id": "alerts"}, (int(layout.alert.width), 1),
                                layout.type_height, portrait=layout.portrait)
        self.heights = card_heights(context, self.alerts or [], layout.unit)
        return {"alert": band_height(self.alerts or [], screen, layout.unit, [h for h, _ in self.heights])}

    def due_ms(self, state: AlertsState) -> int | None:
        return state.due_ms()

    def apply(self, state: AlertsState, restyle: bool) -> None:
        if state.alerts == self.alerts and not restyle:
            return
        self.alerts = state.alerts
        self.widget.clear_widgets()
        self.stage.relayout()  # the band follows the cards
        if not state.alerts:
            self._played()
            return
        context = self.stage.context("screen", {"id": "alerts"})
        try:
            stack = _w().Slide(size_hint=(None, None))
            count = len(state.alerts)
            band = max(1.0, self.stage.area.height)
            gap = min(CARD_GAP * self.stage.layout.unit / band, 0.1 / (count + 1))
            heights = self.heights if len(self.heights) == count else card_heights(context, state.alerts,
                                                                                    self.stage.layout.unit)
            total = sum(h for h, _ in heights)
            top = 1.0 - gap
            for alert, (own, share) in zip(state.alerts, heights):  # each its share of the band
                height = (1.0 - gap * (count + 1)) * own / total
                scale = min(2.5, max(1.0, height * band / own))  # a full-screen card's text is larger
                stack.add_widget(alert_card(context, alert, top, height, scale, share))
                top -= height + gap
        except Exception:  # noqa: BLE001  a card that cannot be drawn costs this round only
            log.exception("display: drawing the alert cards failed")
            self.alerts = None
            self._played(complete=False)
            return
        stack.pos, stack.size = self.widget.pos, self.widget.size
        self.widget.add_widget(stack)
        self._played()

    def _played(self, complete: bool = True) -> None:
        """Proof of play: the cards on screen are the alert plays (one that left ends, ``complete``
        unless the cards could not be drawn)."""
        plays = service(self.host, PLAYS)
        if plays is not None:
            plays.show("alert", [{"id": a.get("id"), "type": a.get("severity"), "label": a.get("title")}
                                 for a in self.alerts or ()], complete)

    def tick(self, dt: float) -> None:
        """Each card's moving parts (a title too long for its line, a body too long for its box, scroll)."""
        for stack in self.widget.children:
            for card in stack.children:
                tick = getattr(card, "tick", None)
                if tick is not None:
                    tick(dt)


# -- the alerts slide ---------------------------------------------------------------------------
def _prepare_alerts(context: RenderContext) -> Any:
    rank = {name: i for i, name in enumerate(ALERT_SEVERITIES)}
    least = rank.get(config_text(context, "minSeverity", "info"), 0)
    sources = set(config_strings(context, "sources"))
    alerts = [a for a in active_alerts(context.host) if rank.get(a.get("severity"), 0) >= least
              and (not sources or a.get("source") in sources)]
    alerts.sort(key=lambda a: (-rank.get(a.get("severity"), 0), -(a.get("priority") or 0)))
    if not alerts:
        return None
    return [{"title": a.get("title", ""), "body": a.get("body", ""), "severity": a.get("severity", "")}
            for a in alerts[:int(config_number(context, "maxAlerts", 6, 1, 20))]]


@renderer(prepare=_prepare_alerts)
def alerts(context: RenderContext) -> Any:
    """An alert an item: its severity's icon (and the severity in words) beside its title, its body
    under it; most severe first, as many as fit."""
    w = _w()
    slide = w.themed_slide(context)
    w.add_title(context, slide, slide_title(context, "Alerts"), accent=w.RED)
    entries = []
    for a in context.data:
        severity = str(a["severity"] or "").lower()
        color = w.on_background(context, SEVERITY_COLORS.get(severity, SEVERITY_COLORS["warning"]))
        meta = " \u00b7 ".join(p for p in (severity.capitalize(), a["body"]) if p)
        entries.append(w.entry(context, a["title"], bold=True, meta=meta, meta_color=context.theme.text,
                               marker=SEVERITY_ICONS.get(severity, "warning"), marker_color=color))
    w.body_column(context, slide, entries)
    return slide
