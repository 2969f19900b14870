"""The real canvas with a driven clock, offscreen, in a subprocess: ``python -m tests.display.driven JOB``.

The child builds a host of the test's environment with only the builtin plugins, stores the
job's rows through the REST app (``ApiClient``: the change events of a write fire as in
production), starts Kivy offscreen as ``svc-display serve`` does and attaches the real
:class:`~svc_host.display.compositor.Compositor` with ``frames=False``: the job's scenario
calls ``compositor.frame(dt)`` itself, so seconds of frame time (dwells, the ticker's speed,
its refresh periods, the host clock) pass as fast as the machine draws, and between frames
the loader thread's work is waited for (:func:`settle`), so every run is the same. It
prints one JSON line with what the scenario saw; :func:`run` starts it from a test.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from svc_display.testing import forkserver
from svc_host.display.driven import Canvas  # noqa: F401  the scenarios' canvas, shared with the scene gallery

REPO = Path(__file__).resolve().parents[2]


def run(env: dict[str, str], job: dict[str, Any], tmp_path: Path, timeout: float = 300) -> dict[str, Any]:
    """Run ``job`` (``scenario``: a name of :data:`SCENARIOS` or a ``"module:function"`` reference
    to a scenario kept with its feature's tests, ``size``, ``requests``: ``[method, path, body]``,
    ``seed``, ``plugins``: ``[name, "module:attribute"]`` besides the builtins, ``start_ms``: the
    host clock (epoch ms) the canvas's frame time starts from, scenario parameters)
    in a child process; its JSON answer."""
    path = tmp_path / f"driven-{job['scenario'].rpartition(':')[2]}.json"
    path.write_text(json.dumps({"env": env, **job}))
    child_env = {**os.environ, **env, "SDL_VIDEODRIVER": "offscreen", "SVC_DISPLAY_HEADLESS": "",
                 "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    done = forkserver.run([sys.executable, "-m", "tests.display.driven", str(path)], env=child_env,
                          timeout=timeout, cwd=str(REPO))
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    assert done.returncode == 0 and lines, f"driven canvas failed ({done.returncode}):\n{done.stderr[-5000:]}"
    answer = json.loads(lines[-1])
    answer["log"] = done.stderr
    return answer


# -- the child process ---------------------------------------------------------------------------

def lines(host: Any) -> list[dict]:
    """The program telemetry lines, oldest first."""
    from hookspecs.services import PROGRAM_TELEMETRY

    return list(reversed(host.services[PROGRAM_TELEMETRY].programs.query(10_000)))


def shown(host: Any) -> list[tuple[str, str]]:
    """(reason, slide id) of every line that put a slide on screen, oldest first."""
    return [(line["reason"], line["slides"][0]["id"]) for line in lines(host)
            if line["reason"] not in ("program_changed", "idle") and line["slides"]]


def seed_news(host: Any) -> None:
    from pony import orm

    now = host.clock.now_ms()
    with orm.db_session:
        host.db.RssFeed(id="lobby-news", url="https://feeds.invalid/lobby", title="Lobby Times", category="news")
        for index, title in enumerate(("Lifts serviced on Friday", "New coffee in the lounge")):
            host.db.RssArticle(id=f"n{index}", feed_id="lobby-news", guid=f"g{index}", title=title,
                               published_at_ms=now - index * 60_000, created_at_ms=now)


# -- scenarios: each returns what the test asserts on ------------------------------------------------

def ticker(canvas: Canvas, job: dict) -> dict:
    """Frames of ``dt`` until ``cycles`` runs of the row have left the band; per frame, how many
    pixels of the band are text (near the theme's text colour)."""
    from PIL import Image, ImageChops

    import threading

    from builtin_plugins.ticker import texts

    marquee = canvas.layer("marquee")
    renders: dict = {"count": 0, "in_frame": []}  # texts drawn into pixels; frames that drew one themselves
    draw = texts.text_image

    def counted(*args: Any) -> Any:
        renders["count"] += 1
        if threading.current_thread() is threading.main_thread():  # the UI thread: inside a frame
            renders["in_frame"].append(frames)
        return draw(*args)

    texts.text_image = counted
    frames = 0
    widget = marquee.widget
    band = (int(widget.y), int(widget.height))
    text_rgb = [round(c * 255) for c in canvas.compositor.preferences.theme.text[:3]]
    width = int(canvas.root.width)
    fbo, ink, times, dropped, runs = None, [], [], 0, []
    first_width = None
    while dropped < job["cycles"] and frames < job.get("max_frames", 20_000):
        before = marquee.runs[0] if marquee.runs else None
        canvas.frame(job["dt"])
        frames += 1
        if before is not None and (not marquee.runs or marquee.runs[0] is not before):
            dropped += 1
        if first_width is None and marquee.runs:
            first_width = marquee.runs[0].row.width
        runs.append(len(marquee.runs))
        fbo, data = canvas.widget_pixels(widget, fbo)
        picture = Image.frombuffer("RGBA", (width, band[1]), data, "raw", "RGBA", 0, 1).convert("RGB")
        picture = picture.crop((0, 2, width, band[1] - 4))  # inside the band, off its rule
        distance = ImageChops.difference(picture, Image.new("RGB", picture.size, tuple(text_rgb))).convert("L")
        ink.append(sum(distance.histogram()[:25]))  # pixels of the text colour
        times.extend(item.text for row in canvas.layer("marquee")._rows() for segment in row.segments
                     if segment.kind == "time" for item in segment.items)
        if frames == job.get("picture_frame", 60) and job.get("png"):
            canvas.png(job["png"])
    texts.text_image = draw
    return {"frames": frames, "ink": ink, "cycles": dropped, "runs": runs, "renders": renders["count"],
            "renders_in_frame": renders["in_frame"],
            "times": sorted(set(times)), "row_width": first_width, "band": band, "width": width,
            "telemetry": len(lines(canvas.host))}


def program(canvas: Canvas, job: dict) -> dict:
    """Frames of ``dt`` for ``seconds`` of frame time: every slide put on screen, and the most
    slide widgets the slides layer ever held at once."""
    slides = canvas.layer("slides")
    most, steps = 0, int(job["seconds"] / job["dt"])
    widgets = set()
    for _ in range(steps):
        canvas.frame(job["dt"])
        most = max(most, len(slides.widget.children))
        if slides.current is not None:
            widgets.add(id(slides.current["widget"]))
    if job.get("png"):
        canvas.png(job["png"])
    return {"shown": shown(canvas.host), "most_widgets": most, "widgets": len(widgets),
            "weights": {r["id"]: r.get("frequency_weight") for r in slides.eligible()}}


def disable(canvas: Canvas, job: dict) -> dict:
    """Show ``slide``, then disable it through REST without any frame time passing."""
    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient

    slides = canvas.layer("slides")
    for _ in range(400):
        if slides.current is not None and slides.current["row"]["id"] == job["slide"]:
            break
        canvas.frame(1.0)
    assert slides.current["row"]["id"] == job["slide"], shown(canvas.host)
    old = slides.current["widget"]
    elapsed = canvas.compositor.elapsed
    api = ApiClient(canvas.host, issue_key(canvas.host, "admin"))
    answer = api.patch(f"/v1/screens/{job['slide']}", json={"enabled": False})
    assert answer.status_code == 200, answer.text
    canvas.settle()  # the change event, the reload, the next slide's preparation: no frame time
    after = {"current": slides.current["row"]["id"] if slides.current else None,
             "elapsed": canvas.compositor.elapsed - elapsed,
             "last": [(line["reason"], [slide["id"] for slide in line["slides"]]) for line in lines(canvas.host)][-1]}
    fade = 0  # frames until the old slide has faded out (0.6 s of frame time)
    while old.parent is not None and fade < 100:
        canvas.frame(0.1)
        fade += 1
    after["fade_frames"] = fade
    after["on_stage"] = len([w for w in slides.widget.children if w is not slides._card])
    after["card"] = slides._card_lines if slides._card is not None else None  # nothing to show: says why
    return after


def ticker_navigation(canvas: Canvas, job: dict) -> dict:
    """Item starts in the band (px from its left edge) before and after ``forward``, then ``back``."""
    marquee = canvas.layer("marquee")
    for _ in range(job.get("frames", 30)):
        canvas.frame(1 / 15)

    def starts() -> list[float]:
        return [round(marquee._start_of(index) + item.x, 1)
                for index, run in enumerate(marquee.runs) for item in run.row.items]

    seen = {"margin": round(marquee.widget.width * 0.02, 1), "before": starts()}
    canvas.host.display_bus.post("navigate", surface="ticker", direction="forward")
    canvas.settle()
    seen["forward"] = starts()
    canvas.host.display_bus.post("navigate", surface="ticker", direction="back")
    canvas.settle()
    seen["back"] = starts()
    return seen


def window_rect(widget: Any) -> list[float]:
    """``widget``'s rectangle in window pixels: ``[x, y, width, height]`` (origin bottom left)."""
    x, y = widget.to_window(widget.x, widget.y)
    return [round(x, 1), round(y, 1), round(widget.width, 1), round(widget.height, 1)]


def zones(canvas: Canvas, job: dict) -> dict:
    """Each group of ``overlays`` (lists of rows) in turn: stored through REST, drawn, then deleted.
    Per group: every overlay widget's zone and window rectangle, the celebration messages'
    rectangles, the rectangles of the slide's widgets marked ``role`` title or primary, and the
    layout's ``free`` area."""
    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient

    api = ApiClient(canvas.host, issue_key(canvas.host, "admin"))
    slides, overlays = canvas.layer("slides"), canvas.layer("overlays")
    seen = []
    for group in job["overlays"]:
        for row in group:
            answer = api.post("/v1/display/overlays", json=row)
            assert answer.status_code < 300, answer.text
        canvas.settle()
        for _ in range(6):  # the slide on screen, its fade done, the overlays built
            canvas.frame(0.25)
        drawn = [{"id": overlay_id, "zone": entry["zone"], "rect": window_rect(entry["widget"]),
                  "celebrations": [window_rect(w) for root in (entry["widget"], entry.get("front")) if root
                                   for w in root.walk(restrict=True) if getattr(w, "role", None) == "celebration"],
                  "texts": [window_rect(w) for w in entry["widget"].walk(restrict=True)
                            if getattr(w, "text", "") and getattr(w, "role", None) != "celebration"]}
                 for overlay_id, entry in overlays.overlays.items() if entry.get("widget") is not None]
        marked = [{"role": w.role, "text": w.text[:40], "rect": window_rect(w), "font_px": round(w.font_size, 1)}
                  for w in slides.widget.walk(restrict=True) if getattr(w, "role", None) in ("title", "primary")]
        free = canvas.compositor.layout.free
        seen.append({"overlays": drawn, "marked": marked, "free": [free.x, free.y, free.width, free.height],
                     "built": list(slides.current["size"]) if slides.current else None,
                     "failed": [e["row"]["id"] for e in overlays.overlays.values() if e["failed"]]})
        if job.get("png"):
            canvas.png(f"{job['png']}-{len(seen)}.png")
        for row in group:
            assert api.delete(f"/v1/display/overlays/{row['id']}").status_code < 300
        canvas.settle()
    return {"groups": seen}


def live_objects() -> dict[str, int]:
    """Kivy widgets, textures and vertex instructions alive now: after Kivy's caches are emptied
    (they keep label and image textures for seconds of wall time) and a full collection."""
    import gc

    from kivy.cache import Cache
    from kivy.graphics.instructions import VertexInstruction
    from kivy.graphics.texture import Texture
    from kivy.uix.widget import Widget

    for category in list(Cache._categories):
        if category != "kv.shader":
            Cache.remove(category)
    gc.collect()
    counts = {"widgets": 0, "textures": 0, "vertex_instructions": 0}
    for obj in gc.get_objects():
        kind = type(obj)  # not isinstance: a dead weak proxy raises on __class__
        if issubclass(kind, Widget):
            counts["widgets"] += 1
        elif issubclass(kind, Texture):
            counts["textures"] += 1
        elif issubclass(kind, VertexInstruction):
            counts["vertex_instructions"] += 1
    return counts


def cycles(canvas: Canvas, job: dict) -> dict:
    """``cycles`` cycles of the program (``cycle_seconds`` of frame time each, frames of ``dt``):
    the live Kivy objects at the end of each cycle, and the slides shown. With ``between`` (a list
    of request lists), cycle ``i``'s count is followed by ``between[i % len(between)]`` (a theme
    switch, say), so the next cycle runs after it."""
    counts = []
    between = job.get("between") or []
    for index in range(job["cycles"]):
        for _ in range(int(job["cycle_seconds"] / job["dt"])):
            canvas.frame(job["dt"])
        counts.append(live_objects())
        for method, path, body in between[index % len(between)] if between else []:
            answer = canvas.api.request(method, path, json=body)
            assert answer.status_code < 300, (path, answer.status_code, answer.text)
    return {"counts": counts, "shown": shown(canvas.host)}


def fills(canvas: Canvas, job: dict) -> dict:
    """Frames of ``dt`` for ``seconds`` of frame time: per frame the window rectangles of the
    full-area fills the compositor draws (the theme backdrop and the slide's ground) and of the
    content area."""
    from svc_host.kit.display.backdrop import Backdrop

    frames, clears = [], []
    for _ in range(int(job["seconds"] / job["dt"])):
        canvas.frame(job["dt"])
        backdrops = [child for child in canvas.root.children if isinstance(child, Backdrop)]
        frames.append([window_rect(child) for child in backdrops])
        clears.append([child.clears for child in backdrops])
    content = canvas.compositor.layout.content
    band = canvas.compositor.layout.ticker
    width = int(canvas.root.width)
    picture = canvas.pixels()  # RGBA rows bottom-up, as the live preview draws the window

    def pixel(x: float, y: float) -> list[int]:
        at = (int(y) * width + int(x)) * 4
        return list(picture[at:at + 3])

    return {"frames": frames, "clears": clears, "content": [content.x, content.y, content.width, content.height],
            "screen": list(canvas.root.size), "shown": shown(canvas.host),
            # a corner of the content area the message slide leaves empty, and the band's middle below its text
            "content_pixel": pixel(content.right - 4, content.top - 4), "band_pixel": pixel(band.x + 2, band.y + 2)}


def backdrop(canvas: Canvas, job: dict) -> dict:
    """Frames of ``dt`` for ``seconds``: then the theme backdrop's state (attached, its pieces), the
    window rectangles of the ground and of the ticker band, and the screen's size."""
    for _ in range(int(job["seconds"] / job["dt"])):
        canvas.frame(job["dt"])
    compositor = canvas.compositor
    ground, band = compositor.ground, compositor.layout.ticker
    return {"attached": compositor.backdrop.parent is not None, "clears": compositor.backdrop.clears,
            "pieces": compositor.backdrop.pieces, "screen": list(canvas.root.size),
            "ground": window_rect(ground) if ground is not None and ground.parent is not None else None,
            "band": [band.x, band.y, band.width, band.height], "shown": shown(canvas.host)}


SCENARIOS = {"ticker": ticker, "program": program, "disable": disable, "ticker_navigation": ticker_navigation,
             "zones": zones, "cycles": cycles, "fills": fills, "backdrop": backdrop}


def main(argv: list[str]) -> int:
    import logging
    import pkgutil

    from svc_display.testing import issue_key
    from svc_display.testing.clients import ApiClient
    from svc_host.config import load_settings
    from svc_host.display import MODE_OFFSCREEN, start_kivy
    from svc_host.host import build_host

    job = json.loads(Path(argv[0]).read_text())
    logging.basicConfig(level=logging.INFO, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    # ``plugins``: [name, "module:attribute"] added to the builtins (a test's own plugin)
    extra = [(name, pkgutil.resolve_name(reference)) for name, reference in job.get("plugins", [])]
    canvas_env = {"SVC_DISPLAY_WINDOW_SIZE": "x".join(str(v) for v in job.get("size", (960, 540))),
                  "SVC_DISPLAY_MAX_FPS": "0"}
    host = build_host(load_settings({**job["env"], "SVC_DISPLAY_HEADLESS": "", **canvas_env}), extra_plugins=extra)
    try:
        if job.get("seed") == "news":
            seed_news(host)
        elif job.get("seed") == "samples":  # sample content (svc-display gallery's): every plugin's or those named
            from svc_host.display.gallery import write_samples

            write_samples(host, job.get("samples"))
        api = ApiClient(host, issue_key(host, "admin"))
        for method, path, body in job.get("requests", []):
            answer = api.request(method, path, json=body)
            assert answer.status_code < 300, (path, answer.status_code, answer.text)
        start_kivy(host, MODE_OFFSCREEN)
        if job.get("start_ms") is not None:  # the wall clock the canvas's frame time starts from
            from svc_display.testing.clock import FixedClock

            host.clock = FixedClock(int(job["start_ms"]))
        canvas = Canvas(host)
        canvas.api = api  # the scenarios' own requests between frames
        name = job["scenario"]
        answer = (SCENARIOS.get(name) or pkgutil.resolve_name(name))(canvas, job)
        canvas.compositor.detach()
    finally:
        host.close()
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
