"""Calls the power tests make on a served display."""
from __future__ import annotations


def power(display, **body):
    answer = display.request("POST", "/v1/display/power", key=display.admin, json=body)
    assert answer.status_code == 200, answer.text
    return answer.json()
