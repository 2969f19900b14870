"""The collecting kit's per-unit loop (svc_host.kit.collecting.each_unit), the one every
collector with several units (feeds, locations, boards, calendars...) runs."""
import pytest

from hookspecs.collect import Cancelled, CollectorError, HttpFailure
from svc_host.kit.collecting import SKIPPED, each_unit


class Context:
    def __init__(self, cancel_after=None):
        self.lines, self.summary, self.checks, self.cancel_after = [], "", 0, cancel_after

    def log(self, message, channel="info"):
        self.lines.append((channel, message))

    def checkpoint(self):
        self.checks += 1
        if self.cancel_after is not None and self.checks > self.cancel_after:
            raise Cancelled("run abandoned")


def work(unit):
    if unit == "down":
        raise HttpFailure("upstream answered HTTP 503 for http://127.0.0.1/x")
    if unit == "empty":
        raise CollectorError("answer has no items")
    if unit == "full":
        return SKIPPED
    return f"{len(unit)} rows"


def test_a_failing_unit_fails_alone_and_each_outcome_is_logged():
    ctx = Context()
    run = each_unit(ctx, ["a", "down", "full", "bbb", "empty"], work, lambda u: f"feed {u}")
    assert (run.done, len(run.failed)) == (2, 2)
    assert ctx.checks == 5
    assert ("info", "feed bbb: 3 rows") in ctx.lines
    assert ("error", "feed empty: answer has no items") in ctx.lines
    assert run.finish(ctx, "feeds", "no feed due", note="3 images") == "2 feeds updated, 2 failed, 3 images"
    assert ctx.summary == "2 feeds updated, 2 failed, 3 images"


def test_the_run_fails_only_when_every_attempted_unit_failed():
    ctx = Context()
    run = each_unit(ctx, ["down", "full", "empty"], work, lambda u: f"board {u}")
    with pytest.raises(CollectorError, match="all 2 boards failed: board down: .*; board empty"):
        run.finish(ctx, "boards", "no board selected")


def test_nothing_to_do_is_the_given_summary():
    ctx = Context()
    assert each_unit(ctx, [], work, str).finish(ctx, "boards", "no board selected") == "no board selected"
    run = each_unit(ctx, ["full"], work, str)
    assert run.finish(ctx, "pools", "every pool is full") == "every pool is full"
    assert ctx.summary == "every pool is full"


def test_other_errors_and_cancellation_end_the_run():
    with pytest.raises(KeyError):
        each_unit(Context(), ["a", "b"], lambda unit: {}[unit], str)
    run = each_unit(Context(), ["a"], lambda unit: {}[unit], str, catch=(KeyError,))
    assert run.failed == ["a: 'a'"]
    with pytest.raises(Cancelled):
        each_unit(Context(cancel_after=1), ["a", "b", "c"], work, str)


def test_on_failure_records_the_failure_itself():
    ctx, seen = Context(), []

    def failed(unit, exc):
        seen.append(unit)
        return f"custom {unit}"

    run = each_unit(ctx, ["down", "a"], work, str, on_failure=failed)
    assert run.failed == ["custom down"] and seen == ["down"]
    assert not [channel for channel, _ in ctx.lines if channel == "error"]
