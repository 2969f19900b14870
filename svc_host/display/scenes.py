"""``svc-display gallery DIR --scenes``: the wall as a café runs it, every layer together.

The plain gallery (:mod:`svc_host.display.gallery`) draws each type alone. A *scene* is one slide
type on the real canvas (:class:`svc_host.display.driven.Canvas`: the real compositor and every
builtin layer, rows stored through the REST app) under the café composition:

- a digital clock in the top-right corner and a QR code in the bottom-right one;
- a birthday celebration: confetti and a message with a long name (:data:`BIRTHDAY`);
- the ticker with four tapes (text, time, news, weather);
- once more with a warning alert (:data:`ALERT`).

with the sample content of every plugin (``display_samples``: the newest news have a long
headline and a summary of about 200 characters) and the checkout's folder plugins (``plugins/``), at each
size asked (default :data:`SIZES`: 1920x1080, 1280x720, 1080x1920, 3840x2160) and in each
builtin theme. A size is one child process (Kivy's window has one size per process).

It writes, in DIR:

- ``scene-<type>-<theme>-<W>x<H>[-alert].png``;
- ``index.html``: a table per size, a row per type, a column per theme (and alert);
- ``scenes.json``: per scene its type, theme, size, alert, file and what the judges read, in
  window pixels with a top-left origin (``[x, y, width, height]``): the ``slide`` rectangle,
  every ``label`` (owner ``slide``, ``overlay:<id>``, ``alert``, role, text, the ``box`` of the
  widget and the ``text_box`` where its texture is drawn, font size, the ``lines`` it was drawn
  with, ``scrolls``: a one-line text scrolling through its box, whose ``text_box`` is the part
  drawn now), every ``image`` (``qr`` for a QR code), the overlay ``panels`` (zone and rectangle),
  the alert ``cards``, the ``decorations`` (confetti and other effect layers) and the ``ticker``
  band; with ``judge`` (the tests), ``decorated`` on each label and image: whether a pixel of its
  box changes when the same frame is drawn again with the decorations hidden
  (:mod:`svc_host.display.scene_geometry` reads them off the canvas).

Feature-free like the rest of the display package: it knows the types through the registries
and the layers through the compositor; the scene's rows are the café's, named here.
"""
from __future__ import annotations

import dataclasses
import html
import json
import logging
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from svc_host.display.scene_geometry import Scene, hidden_decorations, mark_decorated, measure, window_picture

log = logging.getLogger("svc_host.display.scenes")

SIZES = [(1920, 1080), (1280, 720), (1080, 1920), (3840, 2160)]
CHECKOUT = Path(__file__).resolve().parents[2]
BIRTHDAY = "Happy birthday, Maximiliane Oyelaran-Vasquez! Cake and coffee on us at Aurora"
"""The celebration message: a long name, as a café would write it."""
QR_PAYLOAD = "https://aurora.example.org/menu"
ALERT = {"title": "Storm warning: strong winds expected from 15:00",
         "body": "Terrace closed this afternoon; please keep the doors shut.", "severity": "warning"}
WHOLE_YEAR = {"start_month": 1, "start_day": 1, "end_month": 12, "end_day": 31, "enabled": True}
OVERLAYS = [
    {"id": "scene-clock", "overlay_type": "digital_clock",
     "config_json": {"position": "top_right", "time_format_preset": "24h_hm", "show_date": True}},
    {"id": "scene-qr", "overlay_type": "qr_code",
     "config_json": {"payload": QR_PAYLOAD, "caption": "Menu and feedback", "position": "bottom_right"}},
    {"id": "scene-birthday", "overlay_type": "birthday_confetti",
     "config_json": {"messages": [BIRTHDAY], "shapes": ["mix"], "density": 1.0, "fall_speed": 1.0,
                     "opacity": 0.9}},
]
TAPES = ("text", "time", "news", "weather")
DISPLAY_ZONE = "Europe/Berlin"  # the café's zone: the clock panel and the time tape both follow it
SLIDE_CONFIG = {  # realistic lengths over the types' examples
    "message": {"title": "Welcome to Aurora Coffee House",
                "body": "Fresh pastries from the bakery next door every morning until eleven. Ask at the "
                        "counter for today's single origin and our oat milk specials."},
    "news_article": {"category": "news", "maxAgeHours": 1, "showSummary": True, "showQrLink": True},
}
"""The sample news' newest articles (within the hour) have a long headline and a 200-character
summary: the article slide shows one of them."""
SETTLE_FRAMES, FRAME_SECONDS = 4, 0.3  # the slide's change (0.6 s) and the overlays' build done
WAIT_FRAMES = 40  # at most, for a slide whose content takes a while (a video's first frame)


def default_plugins_dir() -> Path | None:
    """The checkout's sample folder plugins (``plugins/``) when this runs from a checkout."""
    folder = CHECKOUT / "plugins"
    return folder if (folder / "README.md").is_file() else None


# -- the child process: one size ---------------------------------------------------------------

def _slide_row(host: Any, type_id: str) -> dict:
    type_def = host.registries.screen_types.get(type_id)
    config = {**dict(type_def.example_config), **SLIDE_CONFIG.get(type_id, {})}
    return {"id": f"scene-{type_id.replace('_', '-')}", "screen_type": type_id, "dwell_seconds": 3600,
            "frequency_weight": 1, "enabled": True, "config_json": config}


class SceneRunner:
    """The scenes of one size, drawn on one driven canvas (UI thread, the main one)."""

    def __init__(self, host: Any, out_dir: Path, size: tuple[int, int], plan: list[tuple[str, str]],
                 alerts: bool, judge: bool):
        from svc_host.http.inprocess import ApiClient, issue_key

        self.host, self.out_dir, self.size = host, out_dir, size
        self.plan, self.alerts, self.judge = plan, alerts, judge  # plan: (theme, type) in drawing order
        self.api = ApiClient(host, issue_key(host, "admin"))
        self.canvas: Any = None
        self.scenes: list[Scene] = []

    def request(self, method: str, path: str, body: Any = None) -> Any:
        answer = self.api.request(method, path, json=body)
        if answer.status_code >= 300:
            raise RuntimeError(f"{method} {path}: {answer.status_code} {answer.text}")
        return answer.json

    def compose(self) -> None:
        """The café: the overlays and the tapes (before the canvas starts)."""
        registries = self.host.registries
        # one zone for every time on screen (the clock panel, the time tape): the display's
        self.request("PUT", "/v1/display/settings", {"display_timezone": DISPLAY_ZONE})
        for row in OVERLAYS:
            if registries.overlay_types.get(row["overlay_type"]) is not None:
                self.request("POST", "/v1/display/overlays", {**row, **WHOLE_YEAR})
        for type_id in TAPES:
            type_def = registries.ticker_types.get(type_id)
            if type_def is not None:
                config = {k: v for k, v in type_def.example_config.items() if k not in ("timeZone", "labelPrefix")}
                self.request("POST", "/v1/ticker/tapes", {"id": f"scene-tape-{type_id}", "ticker_type": type_id,
                                                          "config_json": config})

    def frames(self, count: int) -> None:
        for _ in range(count):
            self.canvas.frame(FRAME_SECONDS)

    def showing(self, row: dict) -> bool:
        current = self.canvas.layer("slides").current
        return current is not None and current["row"]["id"] == row["id"]

    def run(self) -> list[Scene]:
        from svc_host.display.driven import Canvas

        self.compose()
        random.seed(24)  # the same confetti every run
        self.canvas = Canvas(self.host)
        previous, styled = None, None
        for theme, type_id in self.plan:
            if theme != styled:
                self.request("PUT", "/v1/display/settings", {"display_theme_id": theme})
                self.canvas.settle()
                styled = theme
            row = _slide_row(self.host, type_id)
            if previous is not None:
                self.request("DELETE", f"/v1/screens/{previous}")
            self.request("POST", "/v1/screens", row)
            previous = row["id"]
            self.canvas.settle()
            shown = self.scene(row, theme, False)
            if self.alerts or not shown:  # a slide with nothing to show without an alert (the alerts list)
                self.scene(row, theme, True)
        return self.scenes

    def scene(self, row: dict, theme: str, alert: bool) -> bool:
        """Draw the scene of ``row`` in ``theme`` (with the alert raised): whether the slide showed."""
        scene = Scene(row["screen_type"], theme, list(self.size), alert)
        alert_id = self.request("POST", "/v1/alerts", ALERT)["id"] if alert else None
        self.canvas.settle()
        self.frames(SETTLE_FRAMES)
        for _ in range(WAIT_FRAMES):  # a slide whose content takes a while (a video's first frame)
            if self.showing(row):
                break
            self.frames(1)
        shown = self.showing(row)
        if shown:
            self.draw(scene)
        elif alert or self.alerts:  # else it is tried again with the alert
            scene.error = "the slide was not shown (no content, or its renderer failed)"
            self.scenes.append(scene)
        if alert_id is not None:
            self.request("DELETE", f"/v1/alerts/{alert_id}")
            self.canvas.settle()
        return shown

    def draw(self, scene: Scene) -> None:
        width, height = scene.size
        name = f"scene-{scene.type_id}-{scene.theme}-{width}x{height}{'-alert' if scene.alert else ''}"
        try:
            measure(self.canvas, scene)
            drawn = window_picture(self.canvas)
            drawn.save(self.out_dir / f"{name}.png", "PNG", compress_level=1 if self.judge else 6)
            scene.file = f"{name}.png"
            if self.judge:  # the same frame without the decorations: what they cover
                hidden = hidden_decorations(self.canvas)
                try:
                    mark_decorated(scene, drawn, window_picture(self.canvas))
                finally:
                    for piece, opacity in hidden:
                        piece.opacity = opacity
        except Exception as exc:  # noqa: BLE001  a scene that fails is named in the index
            log.exception("scenes: %s", name)
            scene.error = f"{type(exc).__name__}: {exc}"
        self.scenes.append(scene)


def child(job_path: str) -> int:
    """``python -m svc_host.display.scenes JOB``: the scenes of one size into ``JOB``'s folder."""
    from svc_host.config import load_settings
    from svc_host.display.gallery import environment, write_samples
    from svc_host.display.runtime import MODE_OFFSCREEN, start_kivy
    from svc_host.host import build_host

    job = json.loads(Path(job_path).read_text())
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    data_dir = Path(tempfile.mkdtemp(prefix="svc-display-scenes-"))
    env = environment(data_dir, Path(job["plugins_dir"]) if job.get("plugins_dir") else None)
    size = "x".join(str(side) for side in job["size"])
    host = build_host(load_settings({**env, "SVC_DISPLAY_WINDOW_SIZE": size, "SVC_DISPLAY_MAX_FPS": "0"}))
    try:
        write_samples(host)
        from hookspecs.services import ALERTS, service

        alerts = service(host, ALERTS)  # the sample alerts would cover every scene: the scenes raise their own
        for alert in list(alerts.active()) if alerts is not None else ():
            alerts.dismiss(alert["id"])
        registries = host.registries
        types = [t.id for t in sorted(registries.screen_types, key=lambda t: t.id)
                 if not job.get("types") or t.id in job["types"]]
        from hookspecs.services import THEMES

        known = service(host, THEMES)
        themes = [t for t in (known.builtin_ids() if known is not None else ["navy_coral"])
                  if not job.get("themes") or t in job["themes"]]
        plan = [(theme, type_id) for theme in themes for type_id in types]
        if job.get("rotate") is not None:  # each type in one theme, the next type in the next theme
            plan = sorted((themes[(index + job["rotate"]) % len(themes)], type_id) for index, type_id in enumerate(types))
        start_kivy(host, MODE_OFFSCREEN)
        runner = SceneRunner(host, Path(job["out_dir"]), tuple(job["size"]), plan,
                             job.get("alerts", True), job.get("judge", False))
        scenes = runner.run()
        runner.canvas.compositor.detach()
    finally:
        host.close()
        shutil.rmtree(data_dir, ignore_errors=True)
    Path(job["answer"]).write_text(json.dumps({"themes": themes, "types": types,
                                               "scenes": [dataclasses.asdict(s) for s in scenes]}))
    return 0


# -- the command -------------------------------------------------------------------------------

def run(out_dir: Path, sizes: list[tuple[int, int]] | None = None, themes: list[str] | None = None,
        types: set[str] | None = None, alerts: Any = True, judge: bool = False,
        plugins_dir: Path | None = None, rotate: bool = False, timeout: float = 3600) -> dict:
    """Draw the scenes into ``out_dir`` (created), one child process per size; returns the
    manifest also written to ``scenes.json``. Every type in every theme, or with ``rotate`` each
    type in one theme: the n-th type of the k-th size in the (n + k)-th theme, so every theme
    is drawn at every size once there are at least as many types as themes (themes change
    colours, not geometry: the tests draw that way). ``alerts``: whether each scene is drawn
    once more with the alert, or the sizes (``(width, height)``) at which it is."""
    out_dir.mkdir(parents=True, exist_ok=True)
    plugins_dir = plugins_dir if plugins_dir is not None else default_plugins_dir()
    manifest: dict[str, Any] = {"sizes": [], "themes": [], "types": [], "scenes": [], "errors": []}
    for index, size in enumerate(sizes or SIZES):
        with tempfile.TemporaryDirectory(prefix="svc-display-scenes-job-") as work:
            job_path, answer = Path(work) / "job.json", Path(work) / "answer.json"
            job_path.write_text(json.dumps({"out_dir": str(out_dir), "size": list(size), "themes": themes or [],
                                            "types": sorted(types or ()), "judge": judge,
                                            "alerts": alerts if isinstance(alerts, bool) else tuple(size) in
                                            {tuple(s) for s in alerts},
                                            "rotate": index if rotate else None,
                                            "plugins_dir": str(plugins_dir) if plugins_dir else "",
                                            "answer": str(answer)}))
            env = {**os.environ, "SDL_VIDEODRIVER": "offscreen",
                   "PYTHONPATH": os.pathsep.join([str(CHECKOUT), os.environ.get("PYTHONPATH", "")])}
            started = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "svc_host.display.scenes", str(job_path)], env=env,
                                  capture_output=True, text=True, timeout=timeout)
            if done.returncode != 0 or not answer.is_file():
                manifest["errors"].append(f"{size[0]}x{size[1]}: exit {done.returncode}: {done.stderr[-3000:]}")
                continue
            part = json.loads(answer.read_text())
            manifest["seconds"] = {**manifest.get("seconds", {}), f"{size[0]}x{size[1]}": round(time.monotonic() - started)}
            manifest["sizes"].append(list(size))
            used = {s["theme"] for s in manifest["scenes"] + part["scenes"]}
            manifest["themes"] = [t for t in part["themes"] if t in used]
            manifest["types"] = part["types"]
            manifest["scenes"] += part["scenes"]
    (out_dir / "scenes.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    write_index(out_dir, manifest)
    return manifest


def thumbnails(out_dir: Path, manifest: dict, longest: int) -> None:
    """Make the drawn scenes small enough to commit: each PNG becomes a JPEG at most ``longest`` px
    on its long side (Pillow's LANCZOS, quality 82), the index points at them and ``scenes.json``
    (the judges' measurements, megabytes at four sizes) is left out. ``docs/gallery/scenes/`` is
    made this way (docs/display.md, "Scenes")."""
    from PIL import Image

    for scene in manifest["scenes"]:
        if not scene["file"]:
            continue
        png = out_dir / scene["file"]
        with Image.open(png) as picture:
            picture = picture.convert("RGB")
            picture.thumbnail((longest, longest), Image.LANCZOS)
            jpeg = png.with_suffix(".jpg")
            picture.save(jpeg, "JPEG", quality=82, optimize=True)
        png.unlink()
        scene["file"] = jpeg.name
    (out_dir / "scenes.json").unlink(missing_ok=True)
    write_index(out_dir, manifest)


def write_index(out_dir: Path, manifest: dict) -> None:
    sections = []
    for size in manifest["sizes"]:
        scenes = [s for s in manifest["scenes"] if s["size"] == size]
        columns = [(theme, alert) for theme in manifest["themes"] for alert in (False, True)
                   if any(s["theme"] == theme and s["alert"] == alert for s in scenes)]
        head = "".join(f"<th>{html.escape(theme)}{' + alert' if alert else ''}</th>" for theme, alert in columns)
        rows = []
        for type_id in manifest["types"]:
            cells = []
            for theme, alert in columns:
                scene = next((s for s in scenes if s["type_id"] == type_id and s["theme"] == theme
                              and s["alert"] == alert), None)
                if scene is None:
                    cells.append("<td></td>")
                elif scene["file"]:
                    name = html.escape(scene["file"])
                    cells.append(f'<td><a href="{name}"><img src="{name}" width="320" loading="lazy" '
                                 f'alt="{html.escape(type_id)} in {html.escape(theme)}"></a></td>')
                else:
                    cells.append(f'<td class="missing">not drawn: {html.escape(scene["error"])}</td>')
            rows.append(f"<tr><th><code>{html.escape(type_id)}</code></th>{''.join(cells)}</tr>")
        sections.append(f"<h2>{size[0]}x{size[1]}</h2>\n<table><tr><th>slide type</th>{head}</tr>\n"
                        f"{chr(10).join(rows)}\n</table>")
    errors = "".join(f"<pre class=\"missing\">{html.escape(e)}</pre>" for e in manifest["errors"])
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc-display scenes</title>
<style>body{{font-family:sans-serif;background:#222;color:#eee}}td,th{{padding:4px;vertical-align:top}}
.missing{{color:#f99;max-width:320px}}a{{color:#9cf}}</style></head><body>
<h1>svc-display scenes</h1>
<p>Every slide type under the café composition: a clock (top right) and a QR code (bottom right),
a birthday celebration with confetti, the ticker with four tapes, and once more with a warning
alert; sample content and the checkout's folder plugins. Click a picture for full size.</p>
{errors}{chr(10).join(sections)}
</body></html>
"""
    (out_dir / "index.html").write_text(page, encoding="utf-8")


if __name__ == "__main__":
    sys.exit(child(sys.argv[1]))
