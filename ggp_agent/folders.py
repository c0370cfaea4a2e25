"""Whether this process can write in a folder, asked the only reliable way: by writing.

Permission bits do not answer it: root ignores them, and a read-only mount
(`docker run --read-only`), a volume owned by another user or a full disk do
not show in them. Numba asks the same way before it uses a cache folder.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Optional


def write_problem(directory: Path, create: bool = True) -> Optional[str]:
    """Why files cannot be created in `directory` (e.g. "Permission denied"), or None when they can.

    With `create`, a missing folder is created first (its parents too), as the
    code that writes there would do.
    """
    directory = Path(directory)
    try:
        if create:
            directory.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as error:
        return error.strerror or str(error)
    return None


__all__ = ["write_problem"]
