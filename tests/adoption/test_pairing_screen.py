"""The first-start screen and the pairing card on the real canvas (offscreen, the builtin layers, rows
and requests through REST; :mod:`tests.adoption.screens`), at 1920x1080 and 1080x1920.

A display with no slide shows the welcome slide: its name (the host name), the URLs and the
certificate fingerprint the server announced, how to pair; two public pairing requests are drawn on
one card, newest first, each with its identifier, role and code (the code of the console line for
that identifier), and no alert card repeats them; the codes read from the card pair both on the first
try; the first slide added over REST takes the welcome's place. The pairing panel sits in a corner
(a top band in portrait) and what is under it re-fits beside it. Every text is one line that fits its
box, at a readable size, and no two overlap."""
from __future__ import annotations

import re
import socket

import pytest

from hookspecs.render import Rect
from tests.display.driven import run
from hookspecs.services import ADOPTION

REQUESTS = [["kiosk-laptop", "operator"], ["maria-phone", "viewer"]]  # the second is the newer
CONSOLE = re.compile(r'adoption challenge for identifier "([^"]+)" role (\w+): ([0-9A-Z]{4}-[0-9A-Z]{4})')
MIN_PX = 24  # the smallest text, at 1080 px of the short side (a caption)
CODE_MIN_PX = 60  # a code's least size at 1080 lines: its capitals about 17 mm high on a 55" panel, read at 2 m


def rect(values: list[float]) -> Rect:
    return Rect(*values)


def inside(outer: Rect, inner: Rect, slack: float = 1.0) -> bool:
    return (inner.x >= outer.x - slack and inner.y >= outer.y - slack and inner.right <= outer.right + slack
            and inner.top <= outer.top + slack)


def overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.right - 1 and b.x < a.right - 1 and a.y < b.top - 1 and b.y < a.top - 1


def check_texts(labels: list[dict], area: Rect, short_side: int, where: str) -> None:
    """Each label's text on one line inside its box, its box inside ``area``, at least
    :data:`MIN_PX` scaled to the screen, no two boxes overlapping."""
    failures = []
    for item in labels:
        box = rect(item["rect"])
        width, height = item["extent"]
        if width > box.width + 1 or height > box.height + 1:
            failures.append(f"{item['text']!r} needs {width}x{height} px, its box is {box.width}x{box.height}")
        if not inside(area, box):
            failures.append(f"{item['text']!r} {box} leaves the {where} {area}")
        if not item["icon"] and item["font_px"] < MIN_PX * short_side / 1080:
            failures.append(f"{item['text']!r} at {item['font_px']} px")
    for index, a in enumerate(labels):
        for b in labels[index + 1:]:
            if overlap(rect(a["rect"]), rect(b["rect"])):
                failures.append(f"{a['text']!r} {a['rect']} overlaps {b['text']!r} {b['rect']}")
    assert not failures, f"{where}:\n" + "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("size", [(1920, 1080), (1080, 1920)], ids=["landscape", "portrait"])
def test_welcome_slide_then_pairing_card_then_the_first_slide(env, tmp_path, size):
    seen = run(env, {"scenario": "tests.adoption.screens:first_start", "size": list(size),
                     "requests_to_pair": REQUESTS}, tmp_path)
    assert "Traceback" not in seen["log"], seen["log"][-3000:]
    short_side = min(size)
    window = Rect(0, 0, *size)

    # the welcome slide: name, URLs, fingerprint, how to pair
    welcome, area = seen["welcome"], rect(seen["welcome_rect"])
    assert inside(window, area) and area.width >= 0.9 * size[0] and area.height >= 0.8 * size[1], area
    texts = [item["text"] for item in welcome]
    assert texts[1] == socket.gethostname(), texts  # the name, under the welcome line
    assert [t for t in texts if t.startswith("https://")] == seen["urls"][:3], texts
    assert seen["fingerprint"] and re.fullmatch(r"([0-9A-F]{2}:){31}[0-9A-F]{2}", seen["fingerprint"])
    drawn_fingerprint = ":".join(t for t in texts if re.fullmatch(r"([0-9A-F]{2}:)+[0-9A-F]{2}", t))
    assert drawn_fingerprint == seen["fingerprint"], texts
    assert any("pair" in t for t in texts) and any("code" in t for t in texts), texts
    assert any("switch new requests off" in t and "adoption_allow_new_requests" in t for t in texts), texts
    check_texts(welcome, area, short_side, "welcome slide")

    # the pairing card: both requests, newest first, each with its own code (the console's line)
    console = {name: (role, code) for name, role, code in CONSOLE.findall(seen["log"])}
    card, card_box = seen["card"], rect(seen["card_rect"])
    requesters = [item["text"] for item in card if item["role"] == "requester"]
    codes = [item["text"] for item in card if item["role"] == "challenge"]
    assert requesters == ["maria-phone", "kiosk-laptop"], [item["text"] for item in card]
    assert codes == [console[name][1] for name in requesters], (codes, console)
    roles = [item["text"] for item in card if item["text"].startswith("asks for the role")]
    assert roles == [f"asks for the role {console[name][0]}" for name in requesters], roles
    assert inside(window, card_box)
    check_texts(card, card_box, short_side, "pairing card")
    for item in card:  # each code a row of its own under its requester, large enough to read from 2 m
        if item["role"] == "challenge":
            assert rect(item["rect"]).width >= 0.3 * card_box.width, item
            assert item["font_px"] >= CODE_MIN_PX * short_side / 1080, item
    # the panel takes a corner (a band across the top in portrait), never the program's middle: the
    # slide in its place (here the welcome) re-fits beside it, nothing of it covered
    beside = rect(seen["welcome_beside_card"])
    assert not overlap(card_box, beside), (card_box, beside)
    assert beside.area >= 0.5 * window.area, beside
    if size[0] > size[1]:
        assert card_box.width <= 0.4 * size[0] and card_box.x < 0.05 * size[0] and card_box.top > 0.9 * size[1]
    else:
        assert card_box.height <= 0.35 * size[1] and card_box.top > 0.95 * size[1]
    # the adoption alerts are active, but no alert card repeats (or touches) the pairing card
    assert seen["active_alerts"] == ["adoption", "adoption"], seen["active_alerts"]
    assert seen["alert_cards"] == [], seen["alert_cards"]

    # pairing with the codes read from the card succeeds on the first try, and the card goes
    assert seen["confirms"] == [200, 200], seen["confirms"]
    assert seen["card_after"] == 0
    # the first slide takes the welcome's place
    assert seen["after_slide"] == {"welcome": 0, "slide": "first"}, seen["after_slide"]


def test_the_card_shows_the_newest_three_requests(make_host, env):
    """Four pending requests (a minute apart): the card's rows are the newest three, newest first;
    its title counts all four (the card at 1080x1920 with four requests: docs/display.md)."""
    from pony import orm

    from builtin_plugins.adoption.display import MAX_SHOWN, AdoptionState
    from svc_display.testing.clock import advance_clock

    host = make_host()
    for identifier in ("first", "second", "third", "fourth"):
        with orm.db_session:
            host.services[ADOPTION].create(identifier, "viewer")
        advance_clock(env, 60_000)
    state = AdoptionState(host.services[ADOPTION].pending_challenges())
    assert MAX_SHOWN == 3 and len(state.pending) == 4
    assert [row["identifier"] for row in state.shown()] == ["fourth", "third", "second"]


def test_the_first_start_says_when_new_requests_are_off(make_host):
    """With no slide the welcome tells how to pair and to switch new requests off once paired; with
    them off (``adoption_allow_new_requests`` false) it says so and how to switch them on."""
    from pony import orm

    from builtin_plugins.adoption.welcome import PAIRING, PAIRING_OFF, welcome_state
    from hookspecs.services import SETTINGS

    host = make_host()
    assert welcome_state(host).pairing == PAIRING
    assert "adoption_allow_new_requests" in PAIRING[-1] and "off" in PAIRING[-1]
    with orm.db_session:
        host.services[SETTINGS].set("adoption_allow_new_requests", False)
        host.services[SETTINGS].delete("adoption_allowed_roles")
    state = welcome_state(host)
    assert state.show and state.pairing == PAIRING_OFF
    assert any("adoption_allow_new_requests" in line for line in PAIRING_OFF)
