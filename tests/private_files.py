"""Which files under a data dir others may read (the data dir is the serving user's only)."""
from __future__ import annotations

import os
import stat


def loose_modes(data_dir) -> tuple[int, list[tuple[str, str]]]:
    """(how many files are under ``data_dir``, every file or folder others may read or enter)."""
    files = 0
    loose = []
    for root, folders, names in os.walk(data_dir):
        files += len(names)
        for name in folders + names:
            mode = stat.S_IMODE(os.stat(os.path.join(root, name)).st_mode)
            if mode & 0o077:
                loose.append((os.path.join(root, name), oct(mode)))
    return files, loose
