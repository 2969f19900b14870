"""Menu board: a café's price list as a slide of its own.

- table (``models.py``): ``MenuBoardItem``, the rows of each collected board;
- collector ``menu_board_csv`` (``csv_feed.py``): a published CSV (a shared spreadsheet's "publish
  to the web" link) read by URL, one board per sheet;
- slide ``menu_board`` (``display.py``): sections, items with their price in a right-aligned
  tabular column on the item's own line (never split from its name), optional notes (vegan, new,
  sold out) and an optional photo; fed by its config (``sections``) or by a collected ``board``;
- gallery samples (``samples.py``).
"""
from __future__ import annotations

from builtin_plugins.menu_board import models
from hookspecs import Feature
from hookspecs.catalog import load_types

TYPES = load_types(__name__)
FEATURE = Feature(
    entities=models.define_entities,
    types=TYPES,
    samples="builtin_plugins.menu_board.samples:write",
)
