"""The plugin's own test: register it in an in-process host and call its route."""
from importlib import metadata

import falcon.testing

from svc_host.config import load_settings
from svc_host.host import build_host
from svc_host.http.app import create_app

import hello_plugin


def test_hello_answers_an_authenticated_caller(tmp_path):
    settings = load_settings({"SVC_DISPLAY_DATA_DIR": str(tmp_path), "SVC_DISPLAY_HEADLESS": "1"})
    # Installed, the entry point registers the plugin; from a bare checkout, register it here.
    installed = metadata.entry_points(group="svc_display.plugins", name="hello")
    host = build_host(settings, extra_plugins=[] if installed else [("hello-test", hello_plugin)])
    from builtin_plugins.clients.keys import issue_client
    from pony import orm

    with orm.db_session:
        key = issue_client(host, "tester", "viewer").api_key
    client = falcon.testing.TestClient(create_app(host))
    answer = client.simulate_get("/v1/hello", params={"name": "kiosk"}, headers={"Authorization": f"Bearer {key}"})
    assert answer.status_code == 200
    assert answer.json == {"message": "hello, kiosk", "caller": "tester"}
    assert client.simulate_get("/v1/hello").status_code == 401
    host.close()
