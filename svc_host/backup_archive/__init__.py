"""Reading a backup archive into a staging folder, checking every byte on the way.

The one checker of backup archives: the display's restore (``builtin_plugins/maintenance``)
and the controller's upload and pull (``svc_controller/backups.py``) both run it, so the
controller never keeps an archive the display would refuse.

Nothing outside the staging folder is touched here: the archive is refused (and the
staging folder removed by the caller) at the first failed check. Checks, each with the
``details.reason`` of its 400 ``invalid_backup_archive``:

- ``not_an_archive``: neither zip (``PK\\x03\\x04``) nor gzip (``\\x1f\\x8b``) by its first bytes;
- ``corrupt_archive``: truncated or unreadable;
- ``unsafe_path``: an absolute path, ``..``, a backslash, an empty segment, or a name
  outside ``manifest.json``, ``db/svc_display.sqlite3`` and ``media/<blob key>``;
- ``link_member`` / ``device_member`` / ``unexpected_member``: symlinks and hard links,
  devices and FIFOs, directories or other non-regular members;
- ``path_conflict``: a member named like the folder of another (``media/a`` and ``media/a/b``);
- ``duplicate_member``, ``unlisted_member``, ``missing_member``, ``size_mismatch``,
  ``checksum_mismatch``: every member is listed in the manifest with its size and sha256;
- ``manifest_missing``, ``manifest_invalid``, ``unknown_manifest_version``; ``manifest_invalid``
  too for a manifest that nests too deeply, is larger than 64 KiB + 2 KiB a file (16 MiB at
  most) or holds more than 256 + 16 JSON values a file: bounds that keep its parsing within a
  few times its size in memory;
- ``expansion_limit``: more than 4 GiB, or more than 200 times the archive, once expanded
  (for a zip the sum of its members; for a tgz the whole decompressed tar stream);
- ``database_integrity``: the database is not SQLite or fails ``PRAGMA integrity_check``;
- ``not_svc_display_database``: it has no svc-display migration table;
- ``unexpected_schema_object``: a table, index, trigger or view that the live database (this
  build's entities, migrations and start-up) does not have, except the list cache's version
  tables and triggers, made at run time; a trigger, view or virtual table whose SQL differs.

A database whose applied migrations this build does not know, or a manifest whose
``schema_version`` is above this build's, is :class:`BackupTooNew` (409 ``backup_too_new``).
A failed write of the display's own disk (full, too large a file, read-only) while the
archive is staged is :class:`StagingFailed` (507 ``insufficient_storage``), never a verdict
on the archive.

Modules: :mod:`.format` (the archive's names, the verdicts :class:`InvalidArchive`,
:class:`BackupTooNew` and :class:`StagingFailed`, the manifest), :mod:`.reader` (the members
read into the staging folder, :func:`read_archive`) and :mod:`.database` (the staged
database's integrity, migrations and schema).
"""
