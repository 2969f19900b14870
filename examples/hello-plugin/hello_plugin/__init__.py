"""A minimal svc-display plugin: one authenticated route, ``GET /v1/hello``.

``?delay_ms=`` (0-5000) makes the answer wait, which shows that in-flight requests
finish when the host is asked to stop.
"""
import time

from marshmallow import Schema, fields, validate

from hookspecs import AUTHENTICATED, Operation, Route, hookimpl


class HelloQuery(Schema):
    name = fields.String(load_default="world", validate=validate.Length(min=1, max=64))
    delay_ms = fields.Integer(load_default=0, validate=validate.Range(min=0, max=5000))


class HelloResponse(Schema):
    message = fields.String(required=True)
    caller = fields.String(required=True)


class HelloResource:
    def on_get(self, req, resp):
        query = req.context.query
        if query["delay_ms"]:
            time.sleep(query["delay_ms"] / 1000)
        resp.media = {"message": f"hello, {query['name']}", "caller": req.context.principal.identifier}


@hookimpl
def register_routes(host):
    return [Route("/v1/hello", HelloResource(), {
        "GET": Operation(AUTHENTICATED, "say hello", query=HelloQuery, response=HelloResponse, tags=["hello"]),
    }, db_session=False)]
