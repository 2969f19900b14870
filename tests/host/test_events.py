"""Change events: the host's bus, batches, and REST writes that publish after their commit."""
import threading

import pytest
from pony import orm

from hookspecs.services import EVENTS
from svc_host.kit.services import publish
from svc_host.events import ChangeBus


def test_publish_reaches_every_subscriber_and_a_failing_one_is_contained(caplog):
    bus = ChangeBus()
    seen, other = [], []
    bus.subscribe(lambda topic: 1 / 0)
    unsubscribe = bus.subscribe(seen.append)
    bus.subscribe(other.append)
    bus.publish("screens")
    assert seen == other == ["screens"]
    assert "change event 'screens': a subscriber failed" in caplog.text
    unsubscribe()
    bus.publish("alerts")
    assert seen == ["screens"] and other == ["screens", "alerts"]


def test_a_batch_delivers_once_at_its_end_and_drops_on_failure():
    bus = ChangeBus()
    seen = []
    bus.subscribe(seen.append)
    with bus.batch():
        bus.publish("screens")
        bus.publish("alerts")
        bus.publish("screens")
        with bus.batch():  # nested: the outer batch decides
            bus.publish("ticker")
        assert seen == []
    assert seen == ["screens", "alerts", "ticker"]
    seen.clear()
    with pytest.raises(RuntimeError):
        with bus.batch():
            bus.publish("screens")
            raise RuntimeError("rolled back")
    assert seen == []
    bus.publish("settings")  # no batch open any more: delivered at once
    assert seen == ["settings"]


def test_a_batch_holds_only_its_own_threads_events():
    bus = ChangeBus()
    seen = []
    bus.subscribe(seen.append)
    with bus.batch():
        worker = threading.Thread(target=bus.publish, args=("overlays",))
        worker.start()
        worker.join()
        bus.publish("screens")
        assert seen == ["overlays"]
    assert seen == ["overlays", "screens"]


def test_a_rest_write_publishes_after_its_commit_and_a_rejected_one_publishes_nothing(api):
    host = api.host
    seen = []

    def committed_elsewhere(topic: str) -> None:
        # read from another thread (another connection): only committed rows are visible there
        found = []

        def read() -> None:
            with orm.db_session:
                found.append((host.db.Alert.select().count(), host.db.Screen.select().count()))

        reader = threading.Thread(target=read)
        reader.start()
        reader.join()
        seen.append((topic, found[0]))

    host.services[EVENTS].subscribe(committed_elsewhere)
    # the alerts service publishes from inside the responder: held until the request committed
    assert api.post("/v1/alerts", json={"title": "Fire drill"}).status_code == 201
    assert seen == [("alerts", (1, 0))]  # the handler, on another connection, sees the alert
    body = {"id": "lobby", "screen_type": "message", "config_json": {"body": "hi"}}
    assert api.post("/v1/screens", json=body).status_code == 201  # the route's Operation(publishes=...)
    assert seen[-1] == ("screens", (1, 1))
    assert api.post("/v1/screens", json=body).status_code == 409  # rejected: nothing changed, nothing said
    unknown_type = {"id": "x", "screen_type": "nope", "config_json": {}}
    assert api.post("/v1/screens", json=unknown_type).status_code == 400
    assert api.get("/v1/screens").status_code == 200  # reads publish nothing
    assert len(seen) == 2
    assert api.put("/v1/display/settings", json={"display_theme_id": "midnight_teal"}).status_code == 200
    assert [topic for topic, _ in seen] == ["alerts", "screens", "settings"]


def test_publish_without_an_event_bus_does_nothing():
    class Bare:
        services = {}

    publish(Bare(), "screens")  # a host without the bus (a fake in a unit test): no error
