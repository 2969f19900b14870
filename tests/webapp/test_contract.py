"""The web app keeps no copy of the display's limits (no browser needed).

Its forms read the display's request bodies from ``/v1/openapi.json`` (``js/contract.js``).
These checks read the app's source: every body it asks for exists on a real display with a
typed schema, and no limit, range or choice list of a feature is written into the app again.
"""
from __future__ import annotations

import re
from pathlib import Path

WEB_JS = Path(__file__).resolve().parents[2] / "svc_controller" / "web" / "js"
# requestSchema(display, "POST", "/v1/alerts") and requestSchema({ url }, "POST", "/v1/...")
ASKED = re.compile(r"requestSchema\([^,]+,\s*\"(GET|POST|PUT|PATCH|DELETE)\",\s*(?:\"([^\"]+)\"|`([^`]+)`)")
# a number written as a limit: { maximum: 86400 }, min: "30", maxlength: "60"
NUMERIC_LIMIT = re.compile(r"\b(minimum|maximum|exclusiveMinimum|exclusiveMaximum|minLength|maxLength|minItems|maxItems|"
                           r"maxlength|minlength|min|max)\s*:\s*\"?-?\d")
# not a limit of a feature: a progress bar's scale
NOT_LIMITS = {'h("progress", { max: "1"'}
STRING_LIST = re.compile(r"\[\s*(\"[^\"]*\"(?:\s*,\s*\"[^\"]*\")+)\s*\]")


def sources() -> dict[Path, str]:
    return {path: path.read_text() for path in sorted(WEB_JS.rglob("*.js"))}


def asked_bodies(text: str) -> set[tuple[str, str]]:
    """(method, path) of every request body the app reads from the display; a template path's
    ``${spec.path}`` parts are left out (their literal calls are checked where they are listed)."""
    found = set()
    for method, plain, template in ASKED.findall(text):
        if plain:
            found.add((method, plain))
    return found


def enums(node, out: set[frozenset]) -> set[frozenset]:
    """Every enum of strings (two values or more) in an OpenAPI document."""
    if isinstance(node, dict):
        values = node.get("enum")
        if isinstance(values, list) and len(values) > 1 and all(isinstance(v, str) for v in values):
            out.add(frozenset(values))
        for value in node.values():
            enums(value, out)
    elif isinstance(node, list):
        for value in node:
            enums(value, out)
    return out


def test_every_body_the_app_reads_is_on_the_display_and_typed(api):
    doc = api.get("/v1/openapi.json").json
    asked = set().union(*(asked_bodies(text) for text in sources().values()))
    # the interest, program and manual-entry paths are listed in tables, not in the calls
    listed = {("POST", p) for p in re.findall(r"path: \"(/v1/[^\"]+)\"", "".join(sources().values()))}
    listed |= {("PATCH", p + "/{id}") for m, p in listed if p in ("/v1/screens", "/v1/ticker/tapes", "/v1/display/overlays")}
    assert len(asked) >= 8 and len(listed) >= 8, (asked, listed)
    for method, path in sorted((asked | listed) - {("POST", "/v1/interests/joke-categories"),
                                                   ("POST", "/v1/interests/trivia-categories")}):
        operation = doc["paths"].get(path, {}).get(method.lower())
        assert operation and "requestBody" in operation, f"the display has no JSON body for {method} {path}"
        ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        body = doc["components"]["schemas"][ref.rsplit("/", 1)[1]]
        untyped = [name for name, prop in body["properties"].items()
                   if name != "config_json" and not ({"type", "anyOf", "oneOf", "enum", "$ref"} & set(prop))]
        assert not untyped, f"{method} {path}: untyped in the display's schema (the form cannot draw them): {untyped}"


def test_no_feature_limit_is_copied_into_the_web_app():
    copies = [f"{path.relative_to(WEB_JS)}:{number}: {line.strip()}"
              for path, text in sources().items()
              for number, line in enumerate(text.splitlines(), 1)
              if NUMERIC_LIMIT.search(line) and not any(ok in line for ok in NOT_LIMITS)]
    assert not copies, "limits belong to the display's schemas (js/contract.js reads them):\n" + "\n".join(copies)


def test_no_choice_list_of_the_display_is_copied_into_the_web_app(api):
    """A list of strings equal to one of the display's enums (severities, roles, week days,
    answers) is a copy: the form must take the display's."""
    known = enums(api.get("/v1/openapi.json").json, set())
    assert {"info", "warning", "critical"} in known and {"mon", "tue", "wed", "thu", "fri", "sat", "sun"} in known
    copies = [f"{path.relative_to(WEB_JS)}: [{match}]"
              for path, text in sources().items()
              for match in STRING_LIST.findall(text)
              if frozenset(re.findall(r"\"([^\"]*)\"", match)) in known]
    assert not copies, "choices belong to the display's schemas:\n" + "\n".join(copies)
