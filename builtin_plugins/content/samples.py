"""Sample jokes, trivia and quotes for ``svc-display gallery`` (the ``display_samples`` hook), in
the categories the types' examples name."""
from __future__ import annotations

from typing import Any


def write(host: Any) -> None:
    db, now = host.db, host.clock.now_ms()
    db.Joke(id="sample-joke", setup="Why did the scarecrow win an award?",
            punchline="Because he was outstanding in his field.", category_id="dad-jokes",
            integration_type="manual_entry", created_at_ms=now)
    db.TriviaQuestion(id="sample-trivia", question="Which planet has the most moons?", option_a="Earth",
                      option_b="Mars", option_c="Saturn", option_d="Venus", correct_option="C",
                      category_id="science", integration_type="manual_entry", created_at_ms=now)
    db.Quote(id="sample-quote", text="The best way to predict the future is to invent it.", author="Alan Kay",
             integration_type="manual_entry", created_at_ms=now)
