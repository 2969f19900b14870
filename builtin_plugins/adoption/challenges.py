"""Pending adoption challenges: codes, storage, the security alert, expiry (spec 5.3).

A challenge is 8 Crockford base32 characters shown as ``XXXX-XXXX``, valid
:data:`CHALLENGE_TTL_MS`, one per identifier (a new request replaces the old one). It is
stored with its pending row so the display can draw it; it never leaves in an HTTP
response, and the alert carries it only in ``display_only``.
"""
from __future__ import annotations

import hmac
import logging
import secrets
import sys
from typing import Any

from pony import orm

from builtin_plugins.clients.keys import IDENTIFIER_MAX
from hookspecs.services import ALERTS, DISPLAY_MODE
from svc_host.kit.services import Periodic, events_batch, publish

log = logging.getLogger(__name__)

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I, L, O, U
CODE_LENGTH = 8
CHALLENGE_TTL_MS = 5 * 60 * 1000
MAX_WRONG_ATTEMPTS = 5
MAX_PENDING = 20
SWEEP_INTERVAL_S = 5.0
TOPIC = "adoption"  # the change event of a new, confirmed or expired challenge
LAYER = "adoption"  # the display layer that draws the pending challenges
# Crockford decoding: the letters a human may read for a digit.
_ALIASES = str.maketrans({"O": "0", "I": "1", "L": "1"})


def new_code() -> str:
    raw = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{raw[:4]}-{raw[4:]}"


def normalize_code(value: str) -> str | None:
    """``XXXXXXXX`` from user input (hyphens and spaces optional, any case), or None."""
    compact = "".join(value.split()).replace("-", "").upper().translate(_ALIASES)
    if len(compact) != CODE_LENGTH or any(c not in ALPHABET for c in compact):
        return None
    return compact


def define_entities(db: Any) -> None:
    class AdoptionChallenge(db.Entity):
        _table_ = "svc_adoption_challenge"
        identifier = orm.PrimaryKey(str, IDENTIFIER_MAX)
        role = orm.Required(str, 32)
        challenge = orm.Required(str, 16)
        created_at_ms = orm.Required(int, size=64)
        expires_at_ms = orm.Required(int, size=64)
        wrong_attempts = orm.Required(int, default=0)
        alert_id = orm.Optional(str, 128, nullable=True)


class ConfirmFailed(Exception):
    """The code is wrong or expired, or no challenge is pending (401 ``invalid_challenge``)."""


def alert_fields(identifier: str, role: str, code: str, expires_at_ms: int) -> dict:
    """The one description of an adoption alert, raised through the alerts service (the canvas
    draws the challenge itself in the adoption layer, from the pending row)."""
    return {
        "title": "Adoption request",
        "body": f"{identifier} asks for {role} access. Confirm with the code shown on this screen.",
        "priority": 100,
        "source": "adoption",
        "expires_at_ms": expires_at_ms,
        "icon": "shield",
        # drawn_by: the adoption layer's card draws this request (code and all), so the alerts
        # layer does not draw the alert again beside it
        "display_only": {"challenge": code, "role": role, "identifier": identifier, "drawn_by": LAYER},
    }


class AdoptionService:
    """``host.services[ADOPTION]``: the pending challenges, for routes and the display."""

    def __init__(self, host: Any):
        self.host = host
        self._sweeper = Periodic("adoption-sweeper", SWEEP_INTERVAL_S, self._sweep_round)

    # -- for the display ---------------------------------------------------------------
    @orm.db_session
    def pending_challenges(self) -> list[dict]:
        """Unexpired challenges, newest first (the card draws the first few: the request just made
        on top): ``[{identifier, role, challenge, created_at_ms, expires_at_ms}]``.

        Read-only, callable from any thread (the display's); expired rows are left to the sweep.
        """
        now = self.host.clock.now_ms()
        rows = self.host.db.AdoptionChallenge.select(lambda c: c.expires_at_ms > now).order_by(
            lambda c: (orm.desc(c.created_at_ms), c.identifier))
        return [{"identifier": r.identifier, "role": r.role, "challenge": r.challenge,
                 "created_at_ms": r.created_at_ms, "expires_at_ms": r.expires_at_ms} for r in rows]

    def drop_all(self) -> int:
        """Drop every pending challenge and dismiss its alert (inside a db_session): a restarted
        server forgets the requests made to the one before it (their codes were drawn by a screen
        that is gone, and nobody at the screen asked for them again)."""
        rows = list(self.host.db.AdoptionChallenge.select())
        for row in rows:
            self._drop(row)
        return len(rows)

    # -- lifecycle (inside a db_session) -------------------------------------------------
    def sweep(self) -> int:
        """Drop expired challenges and dismiss their alerts."""
        now = self.host.clock.now_ms()
        expired = list(self.host.db.AdoptionChallenge.select(lambda c: c.expires_at_ms <= now))
        for row in expired:
            self._drop(row)
        return len(expired)

    def pending_count(self) -> int:
        return self.host.db.AdoptionChallenge.select().count()

    def oldest_expiry_ms(self) -> int | None:
        return orm.min(c.expires_at_ms for c in self.host.db.AdoptionChallenge)

    def create(self, identifier: str, role: str) -> dict:
        """A new challenge for ``identifier`` (replacing a pending one), its alert and console line."""
        now = self.host.clock.now_ms()
        previous = self.host.db.AdoptionChallenge.get(identifier=identifier)
        if previous is not None:
            self._drop(previous)
            orm.flush()
        code = new_code()
        expires = now + CHALLENGE_TTL_MS
        row = self.host.db.AdoptionChallenge(identifier=identifier, role=role, challenge=code, created_at_ms=now,
                                             expires_at_ms=expires)
        row.alert_id = self._raise_alert(identifier, role, code, expires)
        if self.host.services.get(DISPLAY_MODE) != "window":
            # Without a real window (headless, offscreen canvas) the console is the display:
            # exactly one line on stderr.
            # The identifier is printed as given (it cannot hold line breaks or control characters).
            print(f'svc-display: adoption challenge for identifier "{identifier}" role {role}: {code} '
                  f"(valid 5 minutes)", file=sys.stderr, flush=True)
        return {"identifier": identifier, "role": role, "expires_at_ms": expires}

    def confirm(self, identifier: str, code_input: str) -> Any:
        """The pending row when ``code_input`` matches; raises :class:`ConfirmFailed` otherwise.

        A wrong code counts against the challenge (void after :data:`MAX_WRONG_ATTEMPTS`);
        an expired one is dropped. The caller commits either way before answering 401.
        """
        row = self.host.db.AdoptionChallenge.get(identifier=identifier)
        if row is None:
            raise ConfirmFailed()
        if row.expires_at_ms <= self.host.clock.now_ms():
            self._drop(row)
            raise ConfirmFailed()
        given = normalize_code(code_input) or ""
        expected = row.challenge.replace("-", "")
        if not hmac.compare_digest(given.encode(), expected.encode()):
            row.wrong_attempts += 1
            if row.wrong_attempts >= MAX_WRONG_ATTEMPTS:
                log.warning("adoption challenge for %r voided after %d wrong attempts", identifier,
                            row.wrong_attempts)
                self._drop(row)
            raise ConfirmFailed()
        return row

    def consume(self, row: Any) -> bool:
        """Delete a confirmed challenge exactly once: False when a concurrent confirm took it."""
        identifier, challenge, alert_id = row.identifier, row.challenge, row.alert_id
        taken = self.host.db.AdoptionChallenge.select(
            lambda c: c.identifier == identifier and c.challenge == challenge).delete(bulk=True)
        if taken != 1:
            return False
        self._dismiss(alert_id)
        return True

    def finish(self, row: Any) -> None:
        """Remove a confirmed (or refused) challenge and dismiss its alert."""
        self._drop(row)

    def _drop(self, row: Any) -> None:
        alert_id = row.alert_id
        row.delete()
        self._dismiss(alert_id)

    def _dismiss(self, alert_id: str | None) -> None:
        if alert_id:
            alerts = self.host.services.get(ALERTS)
            if alerts is not None:
                try:
                    alerts.dismiss(alert_id)
                except Exception:  # the alert may be gone already; the challenge is what matters
                    log.exception("could not dismiss adoption alert %s", alert_id)

    def _raise_alert(self, identifier: str, role: str, code: str, expires_at_ms: int) -> str | None:
        alerts = self.host.services.get(ALERTS)
        if alerts is None:
            return None
        alert = alert_fields(identifier, role, code, expires_at_ms)
        try:
            return str(alerts.raise_alert(severity="warning", **alert))
        except ValueError:  # an alerts plugin with a narrower severity vocabulary
            return str(alerts.raise_alert(**alert))

    # -- background expiry ---------------------------------------------------------------
    def start(self) -> None:
        self._sweeper.start()

    def stop(self) -> None:
        self._sweeper.stop()

    def _sweep_round(self) -> None:
        try:
            with events_batch(self.host), orm.db_session:  # change events after the commit
                if self.sweep():
                    publish(self.host, TOPIC)
        except orm.TransactionError:  # a request dropped the same row first: next round
            log.debug("adoption challenge sweep raced a request")
