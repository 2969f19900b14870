"""``svc-display gallery``, run once for the module as a real process (Kivy offscreen, the real
builtin types, their example configs and the plugins' sample content), then what it drew:

- a PNG per (type, builtin theme) and an index linking them;
- the contrast of every text box of every picture, measured from the pixels;
- the QR codes of the slides and overlays that show one, decoded.

``make test`` draws every type in two of the builtin themes (the default and high contrast: the
whole gallery is about 65 s of CPU); ``SVC_GALLERY_ALL=1`` (``make test-full``, which CI runs
after ``make test``) draws and checks every theme.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from builtin_plugins.settings.themes import BUILTIN_THEMES
from svc_host.kit.contrast import MIN_TEXT, contrast_ratio
from svc_host.display.gallery import SAMPLE_CONTROLLER_URL, SKIPPED
from tests import REPO
from tests.display.fixture_plugin import OVERLAY_TYPES, SCREEN_TYPES

# The themes drawn: every builtin one with SVC_GALLERY_ALL=1, else the default and high contrast.
THEMES = list(BUILTIN_THEMES) if os.environ.get("SVC_GALLERY_ALL") == "1" else ["navy_coral", "high_contrast"]
# The real size: at half of it a 30 px overlay font has hardly a pixel of its own colour to measure.
SIZE = (1920, 1080)
TYPE_IDS = {"screen": {t.id: t for t in SCREEN_TYPES}, "overlay": {t.id: t for t in OVERLAY_TYPES}}
NEWS_LINKS = {f"https://news.example.org/articles/{i}" for i in range(1, 5)}
QR_PAYLOADS = {  # (kind, type) -> the payloads one of which the picture's QR code must carry
    ("screen", "qr_code"): {TYPE_IDS["screen"]["qr_code"].example_config["payload"]},
    ("screen", "controller_invite"): {SAMPLE_CONTROLLER_URL},
    ("screen", "news_article"): NEWS_LINKS,
    ("overlay", "qr_code"): {TYPE_IDS["overlay"]["qr_code"].example_config["payload"]},
}


@pytest.fixture(scope="module")
def gallery(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("gallery")
    env = {**os.environ, "SDL_VIDEODRIVER": "offscreen", "TMPDIR": str(tmp_path_factory.mktemp("gallery-tmp")),
           "PYTHONPATH": str(REPO), "SVC_DISPLAY_LOG_LEVEL": "WARNING"}
    env.pop("SVC_DISPLAY_DATABASE_URL", None)
    env.pop("SVC_DISPLAY_PLUGINS_DIR", None)  # as documented: the checkout's plugins/ by default
    themes = [] if THEMES == list(BUILTIN_THEMES) else [arg for theme in THEMES for arg in ("--theme", theme)]
    done = subprocess.run([sys.executable, "-m", "svc_host", "gallery", str(out), *themes],
                          env=env, capture_output=True, text=True, timeout=900, cwd=str(out))
    assert done.returncode == 0, done.stderr[-4000:]
    return out, json.loads((out / "gallery.json").read_text())


def pictures(manifest: dict, kind: str | None = None) -> list[dict]:
    return [p for p in manifest["pictures"] if p["file"] and (kind is None or p["kind"] == kind)]


def test_the_gallery_draws_every_type_in_each_theme_drawn(gallery):
    out, manifest = gallery
    assert manifest["themes"] == THEMES and manifest["size"] == list(SIZE)
    found = {(p["kind"], p["type_id"], p["theme"]): p for p in manifest["pictures"]}
    index = (out / "index.html").read_text()
    for kind, types in TYPE_IDS.items():
        for type_id in types:
            for theme in THEMES:
                picture = found[(kind, type_id, theme)]
                if (kind, type_id) in SKIPPED:
                    assert not picture["file"] and picture["error"]
                    continue
                assert picture["file"], picture["error"]  # no type without content, none failing
                with Image.open(out / picture["file"]) as image:
                    assert image.size == SIZE
                assert f'href="{picture["file"]}"' in index
                if kind == "screen" and type_id not in ("photo", "video"):
                    assert picture["texts"], f"{type_id} in {theme} shows no text"


def test_a_theme_changes_the_picture(gallery):
    out, manifest = gallery
    shown = {(p["type_id"], p["theme"]): p["file"] for p in pictures(manifest, "screen")}
    with Image.open(out / shown[("message", "navy_coral")]) as a, \
            Image.open(out / shown[("message", "high_contrast")]) as b:
        assert a.getpixel((10, 10)) != b.getpixel((10, 10))


def measured_contrast(image: Image.Image, box: list[int]) -> tuple[float, tuple, tuple] | None:
    """(contrast, text colour, background colour) of the text drawn in ``box``: the background is
    the box's most frequent colour, the text the colour farthest from it in contrast among those
    covering a real share of the box (stroke interiors; anti-aliased edges are too rare)."""
    x, y, w, h = box
    left, top = max(0, x), max(0, y)
    right, bottom = min(image.width, x + w), min(image.height, y + h)
    if right - left < 4 or bottom - top < 4:
        return None
    # at most one colour a pixel: a table that size (getcolors(1 << 22) made 4M entries a box, 30 ms)
    colours = image.crop((left, top, right, bottom)).getcolors(maxcolors=(right - left) * (bottom - top))
    colours.sort(reverse=True)
    total = sum(count for count, _ in colours)
    bg = colours[0][1]
    floor = max(4, total * 0.002)
    candidates = [colour for count, colour in colours[1:] if count >= floor]
    if not candidates:
        return None
    scale = [c / 255 for c in bg]
    text = max(candidates, key=lambda c: contrast_ratio([v / 255 for v in c], scale))
    return contrast_ratio([v / 255 for v in text], scale), text, bg


def test_every_text_reads_on_what_it_is_drawn_on(gallery):
    """Every label of every picture (screens and overlays, every builtin theme) at least 4.5:1
    against the background under it, measured from the pixels. Left out: outlined captions (a
    celebration message over anything carries its own black outline) and what a config made
    translucent on purpose (the matrix rain's example asks for opacity 0.6: decoration)."""
    out, manifest = gallery
    failures, measured = [], 0
    for picture in pictures(manifest):
        with Image.open(out / picture["file"]) as image:
            rgb = image.convert("RGB")
            for text in picture["texts"]:
                if text["outlined"] or text["opacity"] < 1:
                    continue
                found = measured_contrast(rgb, text["box"])
                if found is None:
                    continue
                measured += 1
                ratio, fg, bg = found
                if ratio < MIN_TEXT:
                    failures.append(f"{picture['kind']} {picture['type_id']} in {picture['theme']}: "
                                    f"{text['text'][:40]!r} {fg} on {bg} = {ratio:.2f}:1")
    assert measured > 200
    assert not failures, "\n".join(failures)


def test_every_qr_code_decodes_to_its_payload(gallery):
    import zxingcpp

    out, manifest = gallery
    checked = set()
    for picture in pictures(manifest):
        wanted = QR_PAYLOADS.get((picture["kind"], picture["type_id"]))
        if wanted is None:
            continue
        with Image.open(out / picture["file"]) as image:
            decoded = {code.text for code in zxingcpp.read_barcodes(image.convert("RGB"))
                       if code.format == zxingcpp.BarcodeFormat.QRCode}
        assert decoded & wanted, f"{picture['file']}: decoded {decoded}, wanted one of {wanted}"
        checked.add((picture["kind"], picture["type_id"], picture["theme"]))
    assert len(checked) == len(QR_PAYLOADS) * len(THEMES)


@pytest.mark.parametrize("arguments, message", [
    (["--size", "huge"], "--size must be WIDTHxHEIGHT"),
    (["--scenes", "--size", "1920x1080", "--size", "0x0"], "--size must be WIDTHxHEIGHT"),
    (["--scenes", "--plugins-dir", "no-such-folder"], "is not a folder"),
])
def test_bad_arguments_are_refused_before_anything_is_drawn(tmp_path, arguments, message):
    done = subprocess.run([sys.executable, "-m", "svc_host", "gallery", str(tmp_path / "out"), *arguments],
                          env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True, timeout=120,
                          cwd=str(tmp_path))
    assert done.returncode == 2 and message in done.stderr
    assert not (tmp_path / "out").exists()


def test_run_as_documented_the_gallery_installs_the_checkouts_folder_plugins(gallery):
    """``svc-display gallery DIR`` from anywhere (no SVC_DISPLAY_PLUGINS_DIR) draws the sample
    folder plugins' templates (``plugins/python-trivia``), not the "Template not available" panel."""
    _out, manifest = gallery
    templates = [p for p in pictures(manifest) if p["type_id"] == "plugin_template"]
    assert templates
    for picture in templates:
        texts = " ".join(box["text"] for box in picture["texts"])
        assert "Template not available" not in texts, (picture["kind"], picture["theme"], texts)
