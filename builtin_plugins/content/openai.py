"""``general_openai``: text generation (chat completions format) into quotes or jokes.

``POST {baseUrl}/v1/chat/completions`` with ``Authorization: Bearer <apiKey secret>`` and
``{model, messages: [system, user: prompt], temperature}``; the answer's
``choices[0].message.content`` becomes one row per run:

- ``target: "quote"``: the text, with a trailing ``— Author`` (or ``- Author``) line as author;
- ``target: "joke"``: a JSON object ``{setup, punchline}`` when the model returns one,
  else the first line is the setup and the rest the punchline.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pony import orm

from svc_host.kit.collecting import CollectorError, digest
from builtin_plugins.content.pools import trim_oldest
from builtin_plugins.content.jokes import add_joke
from builtin_plugins.content.quotes import upsert_quotes

TYPE_ID = "general_openai"
DEFAULT_BASE = "https://api.openai.com"
AUTHOR = re.compile(r"^(.*?)\s*(?:\n|\s)[—–-]\s*([^\n]{1,200})$", re.DOTALL)


def _joke(text: str) -> tuple[str, str]:
    try:
        data = json.loads(text)
        if isinstance(data, dict) and isinstance(data.get("setup"), str):
            return data["setup"].strip(), str(data.get("punchline") or "").strip()
    except ValueError:
        pass
    first, _, rest = text.strip().partition("\n")
    return first.strip(), rest.strip()


def collect(ctx: Any) -> str:
    key = ctx.secret("apiKey")
    prompt = ctx.setting("prompt")
    messages = []
    if ctx.config.get("systemPrompt"):
        messages.append({"role": "system", "content": ctx.config["systemPrompt"]})
    messages.append({"role": "user", "content": prompt})
    data = ctx.http.post_json(
        ctx.base_url(DEFAULT_BASE) + "/v1/chat/completions",
        {
            "model": ctx.config.get("model", "gpt-4o-mini"),
            "messages": messages,
            "temperature": ctx.config.get("temperature", 1),
        },
        headers={"Authorization": f"Bearer {key}"},
    )
    try:
        text = data["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise CollectorError("answer has no choices[0].message.content") from None
    if not isinstance(text, str) or not text.strip():
        raise CollectorError("the generated text is empty")
    text = text.strip().strip('"')
    keep = int(ctx.config.get("maxItems", 50))
    if ctx.config.get("target", "quote") == "joke":
        setup, punchline = _joke(text)
        category = ctx.config.get("categoryId", "general")
        with orm.db_session:
            add_joke(ctx, TYPE_ID, digest(setup, punchline), setup, punchline, category)
            trim_oldest(list(ctx.db.Joke.select(lambda j: j.integration_type == TYPE_ID)), keep)
        ctx.summary = "1 joke generated"
        return ctx.summary
    match = AUTHOR.match(text)
    quote, author = (match.group(1).strip().strip('"'), match.group(2).strip()) if match else (text, "")
    upsert_quotes(ctx, [(quote, author)], ctx.config.get("categoryId", "quotes"), keep)
    ctx.summary = "1 quote generated"
    return ctx.summary
