"""Jokes and trivia questions entered by hand over HTTP (spec 4.5)."""
import pytest
from pony import orm

from svc_display.testing import issue_key

pytestmark = pytest.mark.svc_display_storage


def test_jokes_and_trivia(api, host):
    joke = api.post("/v1/curator/manual/jokes", json={"category_id": "jokes", "setup": "Why?", "punchline": "Because."})
    assert joke.status_code == 201 and set(joke.json) == {"id"}
    trivia = api.post("/v1/curator/manual/trivia", json={
        "category_id": "trivia", "question": "2+2?", "option_a": "3", "option_b": "4", "option_c": "5",
        "option_d": "22", "correct_option": "B"})
    assert trivia.status_code == 201
    with orm.db_session:
        assert host.db.Joke[joke.json["id"]].integration_type == "manual_entry"
        row = host.db.TriviaQuestion[trivia.json["id"]]
        assert row.correct_option == "B" and row.integration_type == "manual_entry"


@pytest.mark.parametrize("path,body,field", [
    ("jokes", {"category_id": "nope", "setup": "s", "punchline": "p"}, "category_id"),
    ("jokes", {"category_id": "jokes", "setup": "", "punchline": "p"}, "setup"),
    ("jokes", {"category_id": "jokes", "setup": "s"}, "punchline"),
    ("trivia", {"category_id": "trivia", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "option_d": "d", "correct_option": "E"}, "correct_option"),
    ("trivia", {"category_id": "trivia", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "option_d": "d", "correct_option": "b"}, "correct_option"),
    ("trivia", {"category_id": "trivia", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "correct_option": "A"}, "option_d"),
    ("trivia", {"category_id": "missing", "question": "q", "option_a": "a", "option_b": "b", "option_c": "c",
                "option_d": "d", "correct_option": "A"}, "category_id"),
])
def test_joke_and_trivia_validation(api, path, body, field):
    result = api.post(f"/v1/curator/manual/{path}", json=body)
    assert result.status_code == 400, result.text
    assert field in result.json["details"]


def test_permissions(api, host):
    power = issue_key(host, "power_viewer")
    operator = issue_key(host, "operator")
    body = {"category_id": "jokes", "setup": "s", "punchline": "p"}
    assert api.post("/v1/curator/manual/jokes", key=power, json=body).status_code == 403
    assert api.post("/v1/curator/manual/jokes", key=operator, json=body).status_code == 201
