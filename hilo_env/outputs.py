"""Files and folders a command will write, checked before any work: a run of minutes or hours
must not end in "cannot write" (``hilo strength --output``, ``hilo tournament --plot`` and
``--save-replays``, ``hilo play --save-replay``...).

A check writes nothing that stays: it looks for the nearest folder that exists on the way to
the path (the missing ones are made when the file is written) and creates, then removes, a
temporary file there, which is the one test of "may write here" that holds for read-only
mounts, ``/proc`` and permissions alike.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hilo_env.equation_hilo.rules import short_repr


def check_file(path: str | Path, what: str) -> Path:
    """``path`` as a file that can be written (made or replaced); ValueError naming ``what``
    (such as ``--plot``) and the path when it is a folder or its folder cannot be written."""
    text = os.fspath(path)
    where = Path(text)
    if not text or text.endswith(("/", os.sep)) or where.is_dir():
        raise ValueError(f"{what} {short_repr(text)} is a folder: give a file name in it")
    if where.exists() and not os.access(where, os.W_OK):
        raise ValueError(f"{what} {short_repr(text)}: the file may not be written")
    _check_folder_writable(where.parent, what, text)
    return where


def check_folder(path: str | Path, what: str) -> Path:
    """``path`` as a folder that files can be written in (made if missing); ValueError naming
    ``what`` and the path when it is a file or cannot be written."""
    text = os.fspath(path)
    where = Path(text)
    if not text:
        raise ValueError(f"{what} is empty: give a folder")
    _check_folder_writable(where, what, text)
    return where


def _check_folder_writable(folder: Path, what: str, text: str) -> None:
    existing = folder
    while not existing.exists() and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{what} {short_repr(text)}: {str(existing)!r} is a file, not a "
                         "folder")
    try:
        with tempfile.NamedTemporaryFile(dir=existing, prefix=".hilo-check-"):
            pass
    except OSError as exc:
        raise ValueError(f"{what} {short_repr(text)}: cannot write in {str(existing)!r} "
                         f"({exc.strerror or exc})") from None
