"""The loopback upstream of collector tests lives in the plugin authors' kit now; :func:`json_reply`
is a JSON answer for a :class:`Reply` list."""
import json

from svc_display.testing.upstream import FAULTS, SLOW_FAULTS, Reply, Request, Upstream, wait_for  # noqa: F401


def json_reply(status, payload):
    return Reply(status, {"Content-Type": "application/json"}, json.dumps(payload).encode())
