"""trivia_opentdb, joke_icanhazdadjoke, quote_zenquotes and general_openai against documented formats."""

from __future__ import annotations

from pony import orm

from tests.integrations.fault_setups import configure
from tests.integrations.upstream import Reply
from hookspecs.services import INTEGRATIONS


OPENTDB = {
    "response_code": 0,
    "results": [
        {
            "type": "multiple",
            "difficulty": "easy",
            "category": "Science &amp; Nature",
            "question": "What is H&#039;s atomic number &quot;Z&quot;?",
            "correct_answer": "1",
            "incorrect_answers": ["2", "8", "&lt;none&gt;"],
        },
        {
            "type": "multiple",
            "difficulty": "easy",
            "category": "General",
            "question": "Which is a fruit?",
            "correct_answer": "Apple",
            "incorrect_answers": ["Carrot", "Leek", "Kale"],
        },
        {
            "type": "boolean",
            "difficulty": "easy",
            "category": "General",
            "question": "The sky is blue.",
            "correct_answer": "True",
            "incorrect_answers": ["False"],
        },
    ],
}


def test_trivia_fills_pools_below_minimum(host, upstream):
    upstream.json("/api.php", OPENTDB)
    with orm.db_session:
        host.db.TriviaCategory(
            id="science",
            min_questions=2,
            max_questions=3,
            config_json={"opentdbCategory": 17, "difficulty": "easy"},
        )
        host.db.TriviaCategory(id="off", enabled=False)
    configure(host, "trivia_opentdb", baseUrl=upstream.url)
    engine = host.services[INTEGRATIONS]
    result = engine.run_now("trivia_opentdb")
    assert result.status == "ok", result
    query = upstream.requests_to("/api.php")[0].query
    assert query == {"amount": ["3"], "type": ["multiple"], "category": ["17"], "difficulty": ["easy"]}
    with orm.db_session:
        rows = {q.question: q.to_dict() for q in host.db.TriviaQuestion.select()}
    assert set(rows) == {'What is H\'s atomic number "Z"?', "Which is a fruit?", "The sky is blue."}
    atom = rows['What is H\'s atomic number "Z"?']
    options = [atom[f"option_{x}"] for x in "abcd"]
    assert sorted(options) == sorted(["1", "2", "8", "<none>"])
    assert atom[f"option_{atom['correct_option'].lower()}"] == "1"
    assert atom["integration_type"] == "trivia_opentdb" and atom["category_id"] == "science"
    boolean = rows["The sky is blue."]
    assert boolean["option_c"] == "" and boolean[f"option_{boolean['correct_option'].lower()}"] == "True"
    # the pool is full: a scheduled run asks nothing
    with orm.db_session:
        host.db.Integration["trivia_opentdb"].enabled = True
    assert engine.run_now("trivia_opentdb", force=False).message == "every trivia pool is full enough"
    assert len(upstream.requests_to("/api.php")) == 1


def test_trivia_response_code_is_a_failure(host, upstream):
    upstream.json("/api.php", {"response_code": 5, "results": []})
    with orm.db_session:
        host.db.TriviaCategory(id="science")
    configure(host, "trivia_opentdb", baseUrl=upstream.url)
    result = host.services[INTEGRATIONS].run_now("trivia_opentdb")
    assert result.status == "failed" and "rate limited" in result.message


def test_dad_jokes_split_and_pool(host, upstream):
    jokes = iter(
        [
            {
                "id": "R7UfaahVfFd",
                "joke": "Why did the scarecrow win? He was outstanding in his field.",
                "status": 200,
            },
            {"id": "x1", "joke": "I only know 25 letters of the alphabet. I don't know y.", "status": 200},
        ]
    )

    def answer(request):
        assert request.headers["Accept"] == "application/json"
        import json

        return Reply(200, {"Content-Type": "application/json"}, json.dumps(next(jokes)).encode())

    upstream.handle("/", answer)
    with orm.db_session:
        host.db.JokeCategory(id="dad", pool_size=2)
    configure(host, "joke_icanhazdadjoke", baseUrl=upstream.url, perRun=2)
    result = host.services[INTEGRATIONS].run_now("joke_icanhazdadjoke")
    assert result.status == "ok", result
    with orm.db_session:
        rows = {
            j.id: (j.setup, j.punchline, j.category_id, j.integration_type) for j in host.db.Joke.select()
        }
    assert rows == {
        "joke_icanhazdadjoke:R7UfaahVfFd": (
            "Why did the scarecrow win?",
            "He was outstanding in his field.",
            "dad",
            "joke_icanhazdadjoke",
        ),
        "joke_icanhazdadjoke:x1": (
            "I only know 25 letters of the alphabet. I don't know y.",
            "",
            "dad",
            "joke_icanhazdadjoke",
        ),
    }


def test_zenquotes(host, upstream):
    upstream.json(
        "/api/quotes",
        [
            {
                "q": "Act as if what you do makes a difference. It does.",
                "a": "William James",
                "h": "<blockquote>...</blockquote>",
            },
            {"q": "Well begun is half done.", "a": "Aristotle", "h": ""},
        ],
    )
    configure(host, "quote_zenquotes", baseUrl=upstream.url, maxQuotes=1)
    engine = host.services[INTEGRATIONS]
    assert engine.run_now("quote_zenquotes").status == "ok"
    with orm.db_session:
        rows = [(q.text, q.author, q.integration_type) for q in host.db.Quote.select()]
    assert len(rows) == 1 and rows[0][2] == "quote_zenquotes"  # trimmed to maxQuotes


def test_openai_chat_completions_into_quotes_and_jokes(host, upstream, api):
    seen = []

    def completion(request):
        seen.append((request.headers.get("Authorization"), request.json()))
        content = (
            '{"setup": "Why do programmers prefer dark mode?", "punchline": "Light attracts bugs."}'
            if "joke" in request.json()["messages"][-1]["content"]
            else "Small steps every day add up.\n— The Display"
        )
        import json

        return Reply(
            200,
            {"Content-Type": "application/json"},
            json.dumps(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion",
                    "created": 1717236000,
                    "model": "gpt-4o-mini",
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": content},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
                }
            ).encode(),
        )

    upstream.handle("/v1/chat/completions", completion)
    engine = host.services[INTEGRATIONS]
    configure(host, "general_openai", baseUrl=upstream.url, prompt="one quote", target="quote")
    assert engine.run_now("general_openai").status == "failed"  # no key yet
    api.patch("/v1/integrations/general_openai", json={"secrets": {"apiKey": "sk-test-123456"}})
    assert engine.run_now("general_openai").status == "ok"
    assert seen[0][0] == "Bearer sk-test-123456"
    assert seen[0][1]["model"] == "gpt-4o-mini" and seen[0][1]["messages"][-1] == {
        "role": "user",
        "content": "one quote",
    }
    configure(host, "general_openai", baseUrl=upstream.url, prompt="one joke", target="joke", categoryId="tech")
    assert engine.run_now("general_openai").status == "ok"
    with orm.db_session:
        assert [(q.text, q.author) for q in host.db.Quote.select()] == [
            ("Small steps every day add up.", "The Display")
        ]
        assert [(j.setup, j.punchline, j.category_id) for j in host.db.Joke.select()] == [
            ("Why do programmers prefer dark mode?", "Light attracts bugs.", "tech")
        ]
