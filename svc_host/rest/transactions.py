"""Committing inside a responder so that a race on the same rows is a 409, never a 500."""
from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from pony import orm

from svc_host.http.errors import ApiError


@contextmanager
def committed_or_conflict(message: str = "a concurrent request changed the same data; retry") -> Iterator[None]:
    """Run the block and commit it now; a Pony transaction error (unique key, optimistic
    check) rolls back and answers 409 ``conflict``. Use inside the request's db_session."""
    try:
        yield
        orm.commit()
    except orm.TransactionError:
        orm.rollback()
        raise ApiError(409, "conflict", message) from None


def commit_quietly() -> bool:
    """Commit what the request did so far (e.g. a failed-attempt counter) before refusing it;
    False (and rolled back) when a concurrent request won the race."""
    try:
        orm.commit()
        return True
    except orm.TransactionError:
        orm.rollback()
        return False
