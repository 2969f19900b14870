"""Plugin templates: the format (a JSON layout with ``{field}`` placeholders, validated at
startup) and the ``plugin_template`` slide and overlay drawing them on the real offscreen
canvas, checked by pixels; a template or data error is contained in a fallback panel."""
from __future__ import annotations

import json
import time

import jsonschema
import pytest

from builtin_plugins.folder_plugins.manifest import ManifestError, load_manifest
from builtin_plugins.folder_plugins.templates import (
    TEMPLATE_SCHEMA,
    MissingField,
    TemplateError,
    fill,
    fill_blocks,
    load_template,
)
from hookspecs.render import TITLE_BOX
from tests.display.canvas import (GREY, PREVIEW_HEIGHT, PREVIEW_WIDTH, SLIDE_BOX, CanvasServer, canvas_env,
                                  changed_fraction, colour_fraction, message, no_containment_error, overlay,
                                  show_only, wait_for_change)
from tests.display.fixture_plugin import png
from tests.folder_plugins.sidecars import EXAMPLES, documented_json, rows_by_id, write_plugin

MAGENTA, YELLOW, BLUE, WHITE, GREEN, DARK = (255, 0, 255), (250, 250, 0), (0, 0, 255), (255, 255, 255), \
    (0, 255, 0), (32, 32, 32)
BOXES = {"magenta": [0.05, 0.1, 0.3, 0.35], "file": [0.65, 0.1, 0.3, 0.35], "blob": [0.65, 0.55, 0.3, 0.35],
         "text": [0.05, 0.55, 0.3, 0.35], "empty": [0.4, 0.1, 0.2, 0.8]}
BOARD = {"background": "#202020", "blocks": [
    {"type": "rect", "box": BOXES["magenta"], "color": "#ff00ff"},
    {"type": "image", "file": "yellow.png", "box": BOXES["file"], "fit": "cover"},
    {"type": "image", "blob": "{photo}", "box": BOXES["blob"], "fit": "cover"},
    {"type": "text", "text": "{word} {word}\n{word} {word}", "box": BOXES["text"], "size": 110, "bold": True,
     "color": "#ffffff"},
    {"type": "text", "text": "{missing}", "box": BOXES["empty"], "optional": True, "color": "#ffffff"},
]}
BADGE = {"blocks": [{"type": "rect", "box": [0.4, 0.35, 0.2, 0.3], "color": "#00ff00"},
                    {"type": "title", "text": "{title}"}]}
BAD_IMAGE = {"blocks": [{"type": "image", "file": "not-an-image.png", "box": [0, 0, 1, 1]}]}
DATA = {"word": "WWWW", "photo": "test/blue.png"}


# -- the format ---------------------------------------------------------------------------------
def test_the_documented_template_schema_is_the_one_the_code_uses():
    assert documented_json("template-schema") == TEMPLATE_SCHEMA
    jsonschema.Draft202012Validator.check_schema(TEMPLATE_SCHEMA)


def test_placeholders_are_field_lookups_and_nothing_else():
    data = {"name": "Ada", "n": 3, "ok": True, "x": 1.5, "nested": {"list": ["a", "b"]}, "none": None}
    assert fill("Hi {name}: {n} {ok} {x} {nested.list.1} {{name}}", data) == "Hi Ada: 3 true 1.5 b {name}"
    for text, error in (("{nope}", "no field 'nope'"), ("{none}", "no field 'none'"),
                        ("{nested.list.5}", "no field 'nested.list.5'"), ("{__class__}", "no field '__class__'")):
        with pytest.raises(MissingField, match=error):
            fill(text, data)
    with pytest.raises(TemplateError, match="'nested' is an object, not text"):
        fill("{nested}", data)
    # what str.format would evaluate is plain text here (and refused by the schema at startup)
    assert fill("{0.__class__} {name!r} {name:>10}", data) == "{0.__class__} {name!r} {name:>10}"


def test_optional_blocks_are_left_out_when_their_field_is_missing():
    blocks = fill_blocks({"blocks": [{"type": "title", "text": "{t}"},
                                     {"type": "text", "text": "{gone}", "box": [0, 0, 1, 1], "optional": True},
                                     {"type": "list", "items": ["{l.0}", "x"], "box": [0, 0, 1, 1]}]},
                         {"t": "T", "l": ["one"]})
    assert blocks == [{"type": "title", "text": "T", "box": [0.08, 0.08, 0.86, 0.16]},
                      {"type": "list", "items": ["one", "x"], "box": [0, 0, 1, 1]}]
    with pytest.raises(MissingField):
        fill_blocks({"blocks": [{"type": "title", "text": "{gone}"}]}, {})


@pytest.mark.parametrize("template, words", [
    ({"blocks": [{"type": "pie"}]}, "/blocks/0/type: 'pie' is not one of"),
    ({"blocks": []}, "/blocks: [] should be non-empty"),
    ({"blocks": [{"type": "text", "text": "x"}]}, "/blocks/0: 'box' is a required property"),
    ({"blocks": [{"type": "title", "text": "{a", "box": [0, 0, 1, 1]}]}, "/blocks/0/text: '{a' has a brace"),
    ({"blocks": [{"type": "title", "text": "{0.__class__}"}]}, "has a brace that is not part of"),
    ({"blocks": [{"type": "title", "text": "x", "onclick": "run()"}]}, "'onclick' was unexpected"),
    ({"blocks": [{"type": "rect", "box": [0, 0, 1, 1], "color": "pink"}]}, "'pink' is not a colour"),
    ({"blocks": [{"type": "rect", "box": [0, 0, 2, 1], "color": "text"}]}, "/blocks/0/box/2"),
    ({"blocks": [{"type": "image", "box": [0, 0, 1, 1]}]}, "needs one of 'blob' and 'file'"),
    ({"blocks": [{"type": "image", "box": [0, 0, 1, 1], "file": "../x.png"}]}, "outside the plugin's folder"),
    ({"blocks": [{"type": "image", "box": [0, 0, 1, 1], "file": "gone.png"}]}, "is not a file in the plugin"),
    ({"blocks": [{"type": "confetti", "box": [0, 0, 1, 1]}]}, "'box' was unexpected"),
    ({"blocks": [{"type": "title", "text": "x"}], "script": "x"}, "'script' was unexpected"),
    ("{not json", "is not JSON"),
])
def test_bad_templates_are_refused_with_the_reason(tmp_path, template, words):
    (tmp_path / "t.json").write_text(template if isinstance(template, str) else json.dumps(template))
    with pytest.raises(TemplateError) as refused:
        load_template(tmp_path, tmp_path / "t.json")
    assert words in str(refused.value)


def test_a_manifest_naming_a_bad_template_is_refused_naming_the_file(tmp_path):
    folder = write_plugin(tmp_path, "p", {"id": "p", "name": "P", "version": "1", "templates": {"card": "c.json"}},
                          {"c.json": '{"blocks": "none"}'})
    with pytest.raises(ManifestError, match=r"^template 'card' \(c.json\) /blocks: 'none' is not of type 'array'"):
        load_manifest(folder)


def test_the_trivia_example_template_fills_with_its_questions():
    plugin = load_manifest(EXAMPLES / "python-trivia")
    question = json.loads((EXAMPLES / "python-trivia" / "trivia.json").read_text())[2]
    blocks = fill_blocks(plugin.layouts["question"], {"question": question["question"],
                                                      "options": question["options"]})
    texts = [b.get("text") or b.get("items") for b in blocks]
    assert "At which company was Unix first written?" in texts
    assert ["IBM", "Xerox PARC", "Bell Labs", "DEC"] in texts
    assert not any(b["type"] == "qr" for b in blocks)  # no link in the data: the optional QR code is left out


# -- on the canvas --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def canvas(tmp_path_factory):
    root = tmp_path_factory.mktemp("template-plugins")
    cards = write_plugin(root, "cards", {"id": "cards", "name": "Cards", "version": "1", "templates": {
        "board": "board.json", "badge": "badge.json", "bad-image": "bad-image.json"}}, {
        "board.json": json.dumps(BOARD), "badge.json": json.dumps(BADGE), "bad-image.json": json.dumps(BAD_IMAGE),
        "not-an-image.png": "this is text"})
    (cards / "yellow.png").write_bytes(png(YELLOW))
    write_plugin(root, "broken", {"id": "broken", "name": "Broken", "version": "1", "templates": {"card": "c.json"}},
                 {"c.json": json.dumps({"blocks": [{"type": "pie"}]})})
    server = CanvasServer(canvas_env(tmp_path_factory.mktemp("template-canvas") / "data",
                                     SVC_DISPLAY_PLUGINS_DIR=str(root))).start().seeded()
    yield server
    server.stop()


def region(box, inset=0.15):
    """The preview pixels of ``box`` (template fractions of the slide), ``inset`` of it trimmed on each side."""
    x, y, w, h = box
    x0, y0, x1, y1 = x + w * inset, y + h * inset, x + w * (1 - inset), y + h * (1 - inset)
    return (round(x0 * PREVIEW_WIDTH), round(y0 * PREVIEW_HEIGHT), round(x1 * PREVIEW_WIDTH),
            round(y1 * PREVIEW_HEIGHT))


def slide(slide_id, plugin, template, data, dwell=60):
    return {"id": slide_id, "screen_type": "plugin_template", "enabled": True, "dwell_seconds": dwell,
            "config_json": {"pluginId": plugin, "template": template, "data": data}}


def fallback_line(canvas, kind, row_id, plugin, template, reason, timeout=10):
    expected = (f"plugin_template {kind} {row_id!r}: plugin {plugin!r}, template {template!r}: {reason}; "
                "showing the fallback panel")
    deadline = time.monotonic() + timeout
    while expected not in canvas.log and time.monotonic() < deadline:
        time.sleep(0.2)
    assert canvas.log.count(expected) == 1, canvas.log[-3000:]


def test_a_template_slide_draws_its_blocks_where_the_template_puts_them(canvas):
    show_only(canvas, slide("board", "cards", "board", DATA))
    frame = canvas.frame(canvas.admin)
    assert colour_fraction(frame, MAGENTA, box=region(BOXES["magenta"])) > 0.95
    assert colour_fraction(frame, YELLOW, box=region(BOXES["file"])) > 0.95  # a file of the plugin
    assert colour_fraction(frame, BLUE, box=region(BOXES["blob"])) > 0.95  # the blob "{photo}" names
    assert colour_fraction(frame, DARK, 30, box=region(BOXES["empty"], 0.05)) > 0.97  # background, no text
    assert colour_fraction(frame, WHITE, 90, box=region(BOXES["text"], 0)) > 0.05  # the words
    for other in ("magenta", "file", "blob"):
        assert colour_fraction(frame, WHITE, 90, box=region(BOXES[other], 0)) < 0.002
    assert colour_fraction(frame, MAGENTA, box=region(BOXES["file"], 0)) < 0.002
    no_containment_error(canvas, "plugin_template")


ERRORS = [
    ("no_field", "cards", "board", {"photo": "test/blue.png"}, "the data has no field 'word'"),
    ("no_template", "cards", "nope", DATA, "the folder plugin 'cards' has no template 'nope' "
                                           "(it has: bad-image, badge, board)"),
    ("no_plugin", "absent", "board", DATA, "no folder plugin 'absent' is installed"),
    ("no_blob", "cards", "board", {**DATA, "photo": "missing/key"}, "block 2: there is no blob 'missing/key'"),
    ("refused", "broken", "card", {}, "the folder plugin 'broken' was refused at startup: template 'card' "
                                      "(c.json) /blocks/0/type: 'pie' is not one of ['title', 'text', 'list', "
                                      "'image', 'qr', 'rect', 'confetti']"),
    ("bad_image", "cards", "bad-image", {}, "block 0: 'not-an-image.png' is not a decodable image"),  # on the UI side
]


def test_template_errors_show_a_fallback_panel_and_the_program_goes_on(canvas):
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    for row_id, plugin, template, data, reason in ERRORS:
        canvas.put_program(canvas.admin, screens=[slide(row_id, plugin, template, data)])
        canvas.wait_until_showing(canvas.admin, row_id)
        fallback_line(canvas, "screen", row_id, plugin, template, reason)
    time.sleep(1.2)  # the crossfade
    frame = canvas.frame(canvas.admin)
    assert changed_fraction(baseline, frame, SLIDE_BOX) > 0.3  # the themed panel
    assert colour_fraction(frame, WHITE, 90, box=region(TITLE_BOX, 0)) > 0.02  # its title
    assert colour_fraction(frame, WHITE, 90, box=region([0.5, 0.85, 0.45, 0.1], 0)) < 0.002
    # the failed slide's dwell ends and the next slide draws
    after_ms = int(time.time() * 1000)
    canvas.put_program(canvas.admin, screens=[slide("bad_image", "cards", "bad-image", {}, dwell=1),
                                              message("next", "#ff0000")])
    canvas.wait_for_slide(canvas.admin, "next", after_ms=after_ms)
    time.sleep(1.2)
    assert colour_fraction(canvas.frame(canvas.admin), (255, 0, 0), box=SLIDE_BOX) > 0.5
    no_containment_error(canvas, "plugin_template")


def test_the_refused_plugin_is_listed_with_its_template_error(canvas):
    rows = rows_by_id(canvas, canvas.admin)
    assert rows["cards"]["state"] == "running"
    assert rows["broken"]["state"] == "failed" and "(c.json) /blocks/0/type" in rows["broken"]["reason"]
    lines = [line for line in canvas.log.splitlines() if "skipping folder plugin 'broken'" in line]
    assert len(lines) == 1 and "template 'card' (c.json) /blocks/0/type: 'pie' is not one of" in lines[0]


def test_a_template_overlay_draws_over_the_slide(canvas):
    """A template with text (the badge's title) is content, drawn over the slide where its blocks
    say: the green block whole at [0.4, 0.35, 0.2, 0.3]. As decoration (under the slide's content,
    masked out of its text boxes) the block was drawn from 0.35 to about 0.57 of the height."""
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)],
                       overlays=[overlay("plugin_template", {"plugin_id": "cards", "template": "badge",
                                                            "data": {"title": "Shipped"}}, id="badge")])
    frame = wait_for_change(canvas, baseline, SLIDE_BOX, 0.01, colour=GREEN)
    assert colour_fraction(frame, GREEN, box=region([0.4, 0.35, 0.2, 0.3])) > 0.95
    # the slide shows around it: its body text ("calm") and ground as they were without the overlay,
    # once the frame the overlay arrived in has passed (the slide's text is laid out again in it;
    # docs/open-items.md)
    frame = settled(canvas)
    assert changed_fraction(baseline, frame, region([0.05, 0.5, 0.3, 0.4])) < 0.01


def test_a_template_overlay_error_is_a_panel_naming_the_template(canvas):
    show_only(canvas, message("calm", GREY))
    baseline = canvas.frame(canvas.admin)
    canvas.put_program(canvas.admin, screens=[message("calm", GREY)],
                       overlays=[overlay("plugin_template", {"plugin_id": "cards", "template": "badge", "data": {}},
                                         id="badge_broken")])
    wait_for_change(canvas, baseline, SLIDE_BOX, 0.05)
    fallback_line(canvas, "overlay", "badge_broken", "cards", "badge", "the data has no field 'title'")
    no_containment_error(canvas, "plugin_template")


def settled(canvas, seconds: float = 10):
    """The first frame equal to the one before it (bounded: the last one after ``seconds``)."""
    deadline = time.monotonic() + seconds
    previous = canvas.frame(canvas.admin)
    while True:
        frame = canvas.frame(canvas.admin)
        if changed_fraction(previous, frame, SLIDE_BOX) == 0 or time.monotonic() > deadline:
            return frame
        previous = frame
