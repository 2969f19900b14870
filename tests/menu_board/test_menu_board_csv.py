"""The menu board's collector (``menu_board_csv``) against a published CSV served on loopback, and
the slide's content: a collected board first, else the config's sections."""
from __future__ import annotations

import pytest
from pony import orm

from hookspecs.render import Preferences
from hookspecs.services import INTEGRATIONS

pytestmark = pytest.mark.svc_display_storage

SHEET = (
    "\ufeffSection,Item,Price,Notes,Supplier\r\n"
    "Coffee,Espresso,2.40,,Roastery A\r\n"
    ",Flat white,3.90,,Roastery A\r\n"  # an empty section continues the one above
    ',"Latte, large",4.60,vegan,\r\n'  # a comma inside quotes
    ",,,,\r\n"  # a row without a name is skipped
    "Bakery,Cinnamon bun,3.20,new,\r\n"
    "Bakery,Banana bread,3.40,Sold out\r\n"  # a short row
)


def configure(host, config: dict) -> None:
    with orm.db_session:
        host.db.Integration["menu_board_csv"].config_json = config


def items(host, board: str) -> list[tuple]:
    with orm.db_session:
        rows = host.db.MenuBoardItem.select(lambda i: i.board == board).order_by(lambda i: i.position)
        return [(r.section, r.name, r.price, r.note) for r in rows]


def prepare(host, row: dict) -> dict | None:
    from builtin_plugins.menu_board.display import _prepare_menu

    with orm.db_session:
        return _prepare_menu(Preferences().context(host, "screen", "menu_board", row))


def test_a_published_csv_becomes_the_board(host, upstream):
    upstream.reply("/menu.csv", SHEET, "text/csv")
    configure(host, {"csvUrl": upstream.url + "/menu.csv", "board": "cafe"})
    result = host.services[INTEGRATIONS].run_now("menu_board_csv")
    assert result.status == "ok", result
    assert items(host, "cafe") == [("Coffee", "Espresso", "2.40", ""), ("Coffee", "Flat white", "3.90", ""),
                                   ("Coffee", "Latte, large", "4.60", "vegan"), ("Bakery", "Cinnamon bun", "3.20", "new"),
                                   ("Bakery", "Banana bread", "3.40", "Sold out")]
    # the slide reads the board (by config or data_key), sections in the sheet's order
    data = prepare(host, {"id": "m", "config_json": {"board": "cafe", "currency": "EUR"}})
    assert [s["name"] for s in data["sections"]] == ["Coffee", "Bakery"]
    latte = data["sections"][0]["items"][2]
    assert latte == {"name": "Latte, large", "price": "4.60\u00a0EUR", "note": "vegan", "sold_out": False}
    assert data["sections"][1]["items"][1]["sold_out"] is True
    by_key = prepare(host, {"id": "m", "data_key": "cafe", "config_json": {"currency": "EUR"}})
    assert by_key["sections"] == data["sections"]

    # the next run replaces the board whole
    upstream.reply("/menu.csv", "name,price\r\nTea,2.00\r\n", "text/csv")
    assert host.services[INTEGRATIONS].run_now("menu_board_csv").status == "ok"
    assert items(host, "cafe") == [("", "Tea", "2.00", "")]


def test_a_sheet_without_a_name_column_fails_and_keeps_the_board(host, upstream):
    upstream.reply("/menu.csv", SHEET, "text/csv")
    configure(host, {"boards": [{"url": upstream.url + "/menu.csv", "board": "cafe"}]})
    assert host.services[INTEGRATIONS].run_now("menu_board_csv").status == "ok"
    upstream.reply("/menu.csv", "dish;cost\r\nTea;2.00\r\n", "text/csv")
    result = host.services[INTEGRATIONS].run_now("menu_board_csv")
    assert result.status != "ok"
    assert len(items(host, "cafe")) == 5  # the board as it was


def test_the_config_feeds_the_slide_when_no_board_has_items(host):
    sections = [{"name": "Coffee", "items": [{"name": "Flat  white", "price": 3.9}, {"name": " "},
                                             {"name": "Tea", "price": "2.50"}]}, {"name": "Empty", "items": []}]
    data = prepare(host, {"id": "m", "config_json": {"board": "nothing-collected", "currency": "€",
                                                     "sections": sections}})
    assert data["sections"] == [{"name": "Coffee", "items": [
        {"name": "Flat white", "price": "€3.90", "note": "", "sold_out": False},
        {"name": "Tea", "price": "€2.50", "note": "", "sold_out": False}]}]
    assert data["title"] == "Menu" and data["photo"] is None
    assert prepare(host, {"id": "m", "config_json": {"sections": [{"items": []}]}}) is None
