"""hello: a complete svc-display plugin. A route (``GET /v1/hello``), a collector with its own
table and a migration, a ticker type, and a screen type and an overlay panel drawn by ``display.py``,
the types declared in ``types.json`` as every builtin declares its own."""
import time

from marshmallow import Schema, fields, validate
from pony import orm

from hookspecs import AUTHENTICATED, Feature, Migration, Operation, Route, hookimpl
from hookspecs.catalog import load_types
from hookspecs.collect import CollectorError
from svc_host.kit.storage import add_column


class HelloQuery(Schema):
    name = fields.String(load_default="world", validate=validate.Length(min=1, max=64))
    delay_ms = fields.Integer(load_default=0, validate=validate.Range(min=0, max=5000))


class HelloResource:
    def on_get(self, req, resp):
        query = req.context.query
        # delay_ms shows that in-flight requests finish on SIGTERM (never sleep(0): it yields the GIL)
        if query["delay_ms"]: time.sleep(query["delay_ms"] / 1000)  # noqa: E701
        resp.media = {"message": f"hello, {query['name']}", "caller": req.context.principal.identifier}


def greetings(host, tape=None, now_ms=None, limit=5):
    """The collected greetings (by id) as ``text (lang)``: the ticker's items, the card's text."""
    rows = host.db.HelloGreeting.select().order_by(host.db.HelloGreeting.id)[:limit]
    return [f"{row.text} ({row.lang})" if row.lang else row.text for row in rows]


def collect(context):
    """``GET {baseUrl}/greetings`` answers ``[{"id", "text", "lang"}]``; each is upserted by id."""
    answer = context.http.get_json(context.base_url("https://greetings.invalid") + "/greetings")
    if not isinstance(answer, list) or not all(isinstance(g, dict) and "id" in g for g in answer):
        raise CollectorError("expected a list of greetings with an id")
    with orm.db_session:
        for item in answer:
            key = str(item["id"])
            row = context.db.HelloGreeting.get(id=key) or context.db.HelloGreeting(id=key)
            row.set(text=str(item.get("text", ""))[:200], lang=str(item.get("lang", ""))[:8])
    context.summary = f"{len(answer)} greetings"


@hookimpl
def register_entities(db):
    class HelloGreeting(db.Entity):
        _table_ = "hello_greeting"
        id = orm.PrimaryKey(str, 64)
        text = orm.Optional(str, 200)
        lang = orm.Optional(str, 8)  # new in 1.1: migration 0002_lang adds it to 1.0 tables


@hookimpl
def register_migrations():
    return [Migration("0002_lang", lambda db: add_column(db, "hello_greeting", "lang", "TEXT", default=""))]


@hookimpl
def register_routes(host):
    hello = Operation(AUTHENTICATED, "say hello", query=HelloQuery)
    return [Route("/v1/hello", HelloResource(), {"GET": hello}, db_session=False)]


# the types (a collector, a ticker tape, a slide and a corner panel) are data: types.json beside
# this file, read when the plugin loads; the code they name ("module:attr") is imported at its first use
FEATURE = Feature(types=load_types(__name__))
