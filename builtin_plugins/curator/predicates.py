"""Schedule-rule predicates and the runtime state they read.

Time predicates (``days_of_week``, ``time_of_day``, ``date_range``) evaluate the local
time in the ``display_timezone`` setting. State predicates read :class:`RuntimeState`:
``display_adopted`` is computed from the adopted clients table. ``internet_reachable``,
``motion_detected``, ``beacon_detected`` and ``display_server_reachable`` read the boolean
runtime signal of the same id when one is set (``PUT /v1/runtime/signals/<id>``, CONTRACT
"Runtime signals"); without one, the first three are what a plugin fed through
``host.services[CURATOR_RUNTIME].set(...)`` (false until then), and
``display_server_reachable`` is true because the REST server and the display run in this
one process. ``runtime_signal`` matches any signal by id (and value).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Callable, Mapping

from hookspecs import CuratorPredicate
from hookspecs.services import CLIENT_KEYS, RUNTIME_SIGNAL_ID, service

DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
HHMM = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)$")
STATE_NAMES = ("display_adopted", "internet_reachable", "display_server_reachable", "motion_detected",
               "beacon_detected")
FED_INPUTS = ("internet_reachable", "motion_detected", "beacon_detected")
# Inputs a boolean runtime signal of the same id overrides.
SIGNAL_INPUTS = ("internet_reachable", "display_server_reachable", "motion_detected", "beacon_detected")
SIGNAL_TEXT_MAX = 1000


class ParamsError(ValueError):
    """Rule params that do not fit the predicate (message is user-facing)."""


@dataclass(frozen=True)
class EvaluationState:
    """What a predicate sees: the instant, its local time, and the runtime state flags."""

    now_ms: int
    local: datetime
    runtime: dict[str, bool]
    signals: Mapping[str, Any] = field(default_factory=dict)


class RuntimeState:
    """Fed inputs for state predicates; thread-safe. ``snapshot`` adds the computed ones and
    lets a boolean runtime signal of the same id win (``signals`` returns the live signals)."""

    def __init__(self, signals: Callable[[], Mapping[str, Any]] | None = None) -> None:
        self._lock = threading.Lock()
        self._fed = {name: False for name in FED_INPUTS}
        self._signals = signals
        self.on_change: Callable[[], None] | None = None  # the curator plugin publishes a change event

    def signals(self) -> dict[str, Any]:
        """Every live runtime signal (empty without the runtime_signals plugin)."""
        return dict(self._signals() or {}) if self._signals is not None else {}

    def set(self, name: str, value: bool) -> None:
        if name not in FED_INPUTS:
            raise KeyError(f"{name!r} is not a fed runtime input; use one of {', '.join(FED_INPUTS)}")
        with self._lock:
            changed = self._fed[name] != bool(value)
            self._fed[name] = bool(value)
        if changed and self.on_change is not None:
            self.on_change()

    def snapshot(self, host: Any, signals: Mapping[str, Any] | None = None) -> dict[str, bool]:
        """Every state flag; display_adopted asks the clients plugin's service (False without it).
        ``signals`` are the live runtime signals (read now when not given)."""
        clients = service(host, CLIENT_KEYS)
        signals = self.signals() if signals is None else signals
        with self._lock:
            inputs = {**self._fed, "display_server_reachable": True}
        for name in SIGNAL_INPUTS:
            if isinstance(signals.get(name), bool):
                inputs[name] = signals[name]
        return {"display_adopted": bool(clients is not None and clients.any_client()),
                **{name: inputs[name] for name in SIGNAL_INPUTS}}


# ---- params checks (for the builtin predicates) -----------------------------------------

def _only(params: dict, allowed: set[str]) -> None:
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ParamsError(f"unknown params: {', '.join(unknown)}")


def check_days(params: dict) -> None:
    _only(params, {"days"})
    days = params.get("days")
    if not isinstance(days, list) or not days or not all(isinstance(d, str) and d in DAYS for d in days):
        raise ParamsError(f"days must be a non-empty list of {', '.join(DAYS)}")
    if len(set(days)) != len(days):
        raise ParamsError("days must not repeat")


def _minutes(value: Any, name: str) -> int:
    match = HHMM.match(value) if isinstance(value, str) else None
    if not match:
        raise ParamsError(f"{name} must be HH:MM (00:00-23:59)")
    return int(match.group(1)) * 60 + int(match.group(2))


def check_time_of_day(params: dict) -> None:
    _only(params, {"start", "end"})
    if _minutes(params.get("start"), "start") == _minutes(params.get("end"), "end"):
        raise ParamsError("start and end must differ (use no rule for the whole day)")


def _date(value: Any, name: str) -> date:
    try:
        if not isinstance(value, str) or len(value) != 10:
            raise ValueError
        return date.fromisoformat(value)
    except ValueError:
        raise ParamsError(f"{name} must be a date YYYY-MM-DD") from None


def check_date_range(params: dict) -> None:
    _only(params, {"start_date", "end_date"})
    if "start_date" not in params and "end_date" not in params:
        raise ParamsError("send start_date, end_date or both")
    start = _date(params["start_date"], "start_date") if "start_date" in params else None
    end = _date(params["end_date"], "end_date") if "end_date" in params else None
    if start and end and start > end:
        raise ParamsError("start_date must not be after end_date")


def check_no_params(params: dict) -> None:
    _only(params, set())


def _signal_value(value: Any) -> bool:
    return isinstance(value, (bool, int, float)) or isinstance(value, str) and len(value) <= SIGNAL_TEXT_MAX


def check_runtime_signal(params: dict) -> None:
    _only(params, {"id", "equals"})
    if not isinstance(params.get("id"), str) or not RUNTIME_SIGNAL_ID.match(params["id"]):
        raise ParamsError(f"id must be a runtime signal id ({RUNTIME_SIGNAL_ID.pattern})")
    if "equals" in params and not _signal_value(params["equals"]):
        raise ParamsError(f"equals must be a boolean, a number or a string of at most {SIGNAL_TEXT_MAX} "
                          "characters")


PARAM_CHECKS: dict[str, Callable[[dict], None]] = {
    "days_of_week": check_days,
    "time_of_day": check_time_of_day,
    "date_range": check_date_range,
    "runtime_signal": check_runtime_signal,
    **{name: check_no_params for name in STATE_NAMES},
}


# ---- evaluation -------------------------------------------------------------------------

def eval_days(state: EvaluationState, params: dict) -> bool:
    return DAYS[state.local.weekday()] in params["days"]


def eval_time_of_day(state: EvaluationState, params: dict) -> bool:
    """``start <= now < end``; when ``end < start`` the window crosses midnight."""
    now = state.local.hour * 60 + state.local.minute
    start, end = _minutes(params["start"], "start"), _minutes(params["end"], "end")
    if start < end:
        return start <= now < end
    return now >= start or now < end


def eval_date_range(state: EvaluationState, params: dict) -> bool:
    today = state.local.date()
    if "start_date" in params and today < date.fromisoformat(params["start_date"]):
        return False
    if "end_date" in params and today > date.fromisoformat(params["end_date"]):
        return False
    return True


def eval_runtime_signal(state: EvaluationState, params: dict) -> bool:
    """The signal ``params.id`` is set and is ``true`` (or, with ``equals``, has that value: a
    boolean never equals a number, ``1`` equals ``1.0``)."""
    if params["id"] not in state.signals:
        return False
    value = state.signals[params["id"]]
    if "equals" not in params:
        return value is True
    expected = params["equals"]
    same_kind = (isinstance(value, bool) == isinstance(expected, bool)
                 and isinstance(value, str) == isinstance(expected, str))
    return same_kind and value == expected


def _state_flag(name: str) -> Callable[[EvaluationState, dict], bool]:
    def evaluate(state: EvaluationState, params: dict) -> bool:
        return bool(state.runtime.get(name, False))

    return evaluate


BUILTIN_PREDICATES = [
    CuratorPredicate("days_of_week", "Days of the week",
                     'Local day (display timezone) is one of params.days, e.g. {"days": ["sat", "sun"]}.',
                     True, eval_days),
    CuratorPredicate("time_of_day", "Time of day",
                     'Local time in [params.start, params.end) as HH:MM; end before start crosses midnight, '
                     'e.g. {"start": "22:00", "end": "06:00"}.', True, eval_time_of_day),
    CuratorPredicate("date_range", "Date range",
                     'Local date within params.start_date..params.end_date (YYYY-MM-DD, inclusive, either '
                     'may be left out).', True, eval_date_range),
    CuratorPredicate("display_adopted", "Display adopted",
                     "At least one client is adopted (computed from the adopted clients).", True,
                     _state_flag("display_adopted")),
    CuratorPredicate("display_server_reachable", "Display server reachable",
                     "The boolean runtime signal display_server_reachable when one is set; otherwise true, "
                     "since the REST server and the display run in one process.", True,
                     _state_flag("display_server_reachable")),
    CuratorPredicate("internet_reachable", "Internet reachable",
                     "The boolean runtime signal internet_reachable (PUT "
                     "/v1/runtime/signals/internet_reachable, e.g. from a folder plugin's probe); false "
                     "while none is set.", True, _state_flag("internet_reachable")),
    CuratorPredicate("motion_detected", "Motion detected",
                     "The boolean runtime signal motion_detected (PUT /v1/runtime/signals/motion_detected "
                     "with a ttl_seconds, from a motion sensor's sidecar); false while none is set.", True,
                     _state_flag("motion_detected")),
    CuratorPredicate("beacon_detected", "Beacon detected",
                     "The boolean runtime signal beacon_detected (PUT /v1/runtime/signals/beacon_detected); "
                     "false while none is set.", True, _state_flag("beacon_detected")),
    CuratorPredicate("runtime_signal", "Runtime signal",
                     'Any runtime signal: {"id": "door.open"} holds while that signal is true; with equals, '
                     'while it has that value, e.g. {"id": "room.mode", "equals": "meeting"}. An expired or '
                     "deleted signal does not hold.", True, eval_runtime_signal),
]


def evaluation_state(now_ms: int, zone: Any, runtime: dict[str, bool],
                     signals: Mapping[str, Any] | None = None) -> EvaluationState:
    return EvaluationState(now_ms, datetime.fromtimestamp(now_ms / 1000, zone), runtime, dict(signals or {}))
