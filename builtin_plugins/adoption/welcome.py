"""The welcome layer (Kivy-only, loaded when a canvas starts): the first-start screen.

While no slide is enabled (the screens service's ``enabled()`` is empty) the layer draws, in
the slides' place (the free area), what a newcomer standing at the screen needs: the display's
name (its host name, as ``GET /v1/health`` reports it), the URLs the server announced on the
console (``host.services[LISTENING]``), the TLS certificate's SHA-256 fingerprint to check when
the controller first connects, and how to pair. The first enabled slide takes its place (the
``screens`` change event reloads the layer); disabling every slide brings it back.

Each text is one line that shrinks to its box (the kit's ``fit_label``), so nothing wraps
inside a word or is cut: the fingerprint is drawn as two lines of 16 byte pairs, the pairing
hint as four short lines, the last telling the owner to switch new requests off once paired
(:data:`PAIRING_OFF` says they are off and how to switch them on).
"""
from __future__ import annotations

import socket
from dataclasses import dataclass
from typing import Any, Sequence

from hookspecs.render import ROLE_PRIMARY, ROLE_TITLE, RenderContext
from hookspecs.services import ADOPTION, LISTENING, SCREENS, Listening, service
from builtin_plugins.adoption.display import OneCardLayer, fit, font
from builtin_plugins.adoption.routes import allowed_roles
from svc_host.kit.display import widgets as _w

MAX_URLS = 3
PAIRING = ("To pair from a controller:", "add this display by one of the addresses above,",
           "then type the code this screen shows.",
           "Once paired, switch new requests off (adoption_allow_new_requests).")
PAIRING_OFF = ("New pairing requests are off on this display:", "an admin switches adoption_allow_new_requests",
               "on, or creates a key with svc-display keys create.")
PAIRING_WITHOUT_ADOPTION = ("Adoption is off on this display:", "an operator creates a key with",
                            "svc-display keys create.")


@dataclass(frozen=True)
class WelcomeState:
    show: bool
    name: str = ""
    urls: tuple[str, ...] = ()
    fingerprint: str | None = None
    listening: bool = False
    pairing: tuple[str, ...] = PAIRING


def fingerprint_lines(fingerprint: str, per_line: int = 16) -> list[str]:
    """``AB:CD:...`` as lines of ``per_line`` byte pairs: a line breaks only between pairs."""
    pairs = fingerprint.split(":")
    return [":".join(pairs[i:i + per_line]) for i in range(0, len(pairs), per_line)]


def welcome_state(host: Any) -> WelcomeState:
    screens = service(host, SCREENS)
    if screens is None or screens.enabled():
        return WelcomeState(False)
    listening: Listening | None = service(host, LISTENING)
    pairing = PAIRING_WITHOUT_ADOPTION
    if service(host, ADOPTION) is not None:
        pairing = PAIRING if allowed_roles(host) else PAIRING_OFF
    if listening is None:
        return WelcomeState(True, socket.gethostname(), pairing=pairing)
    return WelcomeState(True, socket.gethostname(), tuple(listening.urls), listening.fingerprint, True, pairing)


def welcome_slide(context: RenderContext, state: WelcomeState) -> Any:
    """The slide of ``state``: rows of one-line texts stacked top down over the whole area."""
    from kivy.uix.boxlayout import BoxLayout
    from kivy.uix.widget import Widget

    w = _w()
    theme = context.theme
    slide = w.themed_slide(context)
    slide.size_hint, slide.pos_hint = (1, 1), {"x": 0, "y": 0}  # the layer's area, whatever its size
    pad = font(context, 40)
    column = BoxLayout(orientation="vertical", padding=(pad * 2, pad * 1.2), spacing=pad * 0.3,
                       size_hint=(1, 1), pos_hint={"x": 0, "y": 0})

    def lines(texts: Sequence[str], px: float, color: Any, weight: float, role: str = "", bold: bool = False,
              first_color: Any = None) -> None:
        """One row per text, all at one size: the largest at which the longest fits its box."""
        for index, text in enumerate(texts):
            widget = fit(context, text, px, first_color if first_color and not index else color, role, bold=bold,
                         halign="left", size_hint_y=weight, samples=texts)
            column.add_widget(widget)

    accent, muted = theme.accents[0], w.on_background(context, (0.75, 0.78, 0.85, 1))
    lines(["Welcome: this display has no slides yet"], 48, accent, 0.8)
    lines([state.name or "svc-display"], 110, theme.text, 1.6, ROLE_TITLE, bold=True)
    if state.listening:
        lines(["It answers on"], 40, muted, 0.7)
        lines(state.urls[:MAX_URLS], 60, theme.text, 0.9, ROLE_PRIMARY, bold=True)
        if state.fingerprint:
            lines(["Certificate SHA-256 fingerprint"], 40, muted, 0.7)
            portrait = context.size[1] > context.size[0]
            lines(fingerprint_lines(state.fingerprint, 8 if portrait else 16), 44, theme.text, 0.7, ROLE_PRIMARY)
        else:
            lines(["Plain HTTP: no certificate to check"], 40, muted, 0.7)
    else:
        lines(["Starting: its addresses follow in a moment"], 40, muted, 0.7)
    column.add_widget(Widget(size_hint_y=0.3))
    lines(state.pairing, 48, theme.text, 0.8, first_color=accent)
    slide.add_widget(column)
    return slide


class WelcomeLayer(OneCardLayer):
    def load(self) -> WelcomeState:
        return welcome_state(self.host)

    def apply(self, state: WelcomeState, restyle: bool) -> None:
        self.show(state, restyle, (lambda context: welcome_slide(context, state)) if state.show else None)
