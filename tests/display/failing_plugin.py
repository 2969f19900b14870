"""A third-party plugin whose renderers fail, as an author's might (issue 34), and one that does not
load at all (a misspelt hook name). :data:`BROKEN` says which fail now: a scenario clears an entry
to play the fix (the renderer works again) and watches the screen's report clear."""
from __future__ import annotations

from typing import Any

from hookspecs import OverlayType, ScreenType, TickerType, hookimpl

NAME = "failing_renderers"
ANY = {"type": "object"}
BROKEN = {"at_build": True, "later": True, "overlay": True, "overlay_later": True, "tape": True}
LATER_TICKS = 3  # the "later" slide and overlay fail at this frame after they were built
COLOURS = {"at_build": "#ff00ff", "later": "#00ffff"}  # what each slide draws when it works


def _solid(context: Any, colour: str) -> Any:
    from hookspecs.render import parse_color
    from svc_host.kit.display.slide import themed_slide

    return themed_slide(context, [parse_color(colour)])


def at_build(context: Any) -> Any:
    if BROKEN["at_build"]:
        return 1 / 0
    return _solid(context, COLOURS["at_build"])


def _later(widget: Any, key: str) -> Any:
    ticks = {"n": 0}
    ticking = getattr(widget, "tick")

    def tick(dt: float) -> None:
        ticks["n"] += 1
        if BROKEN[key] and ticks["n"] >= LATER_TICKS:
            raise ValueError(f"{key}: fails at frame {ticks['n']}")
        ticking(dt)

    widget.tick = tick
    return widget


def later(context: Any) -> Any:
    return _later(_solid(context, COLOURS["later"]), "later")


def overlay(context: Any) -> Any:
    if BROKEN["overlay"]:
        raise ValueError("overlay: this overlay cannot be built")
    from svc_host.kit.display.slide import Slide

    return Slide()


def overlay_later(context: Any) -> Any:
    from svc_host.kit.display.slide import Slide

    return _later(Slide(), "overlay_later")


def tape(host: Any, row: Any, now_ms: int) -> list[str]:
    if BROKEN["tape"]:
        raise KeyError("tape: no such feed")
    return ["Tape works again"]


@hookimpl
def register_screen_types() -> list:
    return [ScreenType("breaks_at_build", "raises in its factory", ANY, {}, renderer=at_build),
            ScreenType("breaks_later", "raises at a later frame", ANY, {}, renderer=later)]


@hookimpl
def register_overlay_types() -> list:
    return [OverlayType("overlay_breaks", "raises in its factory", ANY, {}, renderer=overlay),
            OverlayType("overlay_breaks_later", "raises at a later frame", ANY, {}, renderer=overlay_later)]


@hookimpl
def register_ticker_types() -> list:
    return [TickerType("tape_breaks", "build_items raises", ANY, {}, build_items=tape, reads=())]


class Misspelt:
    """A plugin whose author wrote ``register_ticker_type``: it does not load (failed, with why)."""

    @hookimpl
    def register_screen_types(self) -> list:
        return [ScreenType("misspelt_slide", "never registered", ANY, {}, renderer=at_build)]

    @hookimpl
    def register_ticker_type(self) -> list:  # misspelt on purpose
        return []


misspelt = Misspelt()
plugin = __import__(__name__, fromlist=["plugin"])
