"""Raw reads and migrations, for the plugins whose hot paths or schema changes go past the ORM.

A face: the host keeps the code in :mod:`svc_host.storage` and :mod:`svc_host.schema`; a plugin
imports these names from here.

- ``select_rows``: the rows of a read-only ``SELECT`` on either backend (SQLite, PostgreSQL) as tuples;
- ``host_reader``, ``close_host_reader``: the per-thread reader outside any ORM session;
- ``add_column``: a column added by a plugin's ``Migration``.
"""
from svc_host.schema import add_column
from svc_host.storage import close_host_reader, host_reader, select_rows

__all__ = ["add_column", "close_host_reader", "host_reader", "select_rows"]
