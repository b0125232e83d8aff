"""Files that hold study data or secrets are for the service's own user only: the state directory is 0700, its files
and the exports 0600; ``promptpipe check`` reports any file other users could read.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
PRIVATE_UMASK = 0o077
"""Set by the command-line entry points, so files libraries make (the WhatsApp session database) are private too."""


def make_private_dir(path: Path) -> bool:
    """Create ``path`` and every missing parent as 0700; True when it was created here (an existing one is left)."""
    if path.is_dir():
        return False
    missing = [path, *(parent for parent in path.parents if not parent.exists())]
    for directory in reversed(missing):
        directory.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
        os.chmod(directory, PRIVATE_DIR_MODE)  # mkdir's mode is filtered by the umask
    return True


def create_private_file(path: Path) -> None:
    """Create an empty 0600 file unless it exists (SQLite then opens it and gives its journal files the same mode)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE_MODE)
    except FileExistsError:
        return
    os.close(fd)
    os.chmod(path, PRIVATE_FILE_MODE)


def open_private(path: Path, mode: str = "x", *, encoding: str = "utf-8", newline: str | None = None) -> TextIO:
    """``open`` (text) for a new file that only this user can read (0600 whatever the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if "x" in mode else os.O_TRUNC if "w" in mode else os.O_APPEND)
    fd = os.open(path, flags, PRIVATE_FILE_MODE)
    os.chmod(path, PRIVATE_FILE_MODE)
    return open(fd, "w" if "x" in mode or "w" in mode else "a", encoding=encoding, newline=newline)


@dataclass(frozen=True)
class LooseMode:
    path: Path
    mode: int
    """The permission bits found (e.g. 0o644)."""
    wanted: int

    def describe(self) -> str:
        kind = "directory" if self.wanted == PRIVATE_DIR_MODE else "file"
        return (f"{self.path} is a {kind} with mode {self.mode:04o}: other users on this machine can read it "
                f"(run: chmod {self.wanted:o} {self.path})")


def loose_modes(state_dir: Path, extra: Iterable[Path] = ()) -> list[LooseMode]:
    """The state directory, its files and the ``extra`` paths (a database elsewhere) that group or others may use."""
    found: list[LooseMode] = []
    paths = [state_dir, *sorted(p for p in state_dir.rglob("*") if not p.is_symlink())] if state_dir.is_dir() else []
    paths += [p for p in extra if p.exists() and p not in paths]
    for path in paths:
        try:
            mode = stat.S_IMODE(path.stat().st_mode)
        except OSError:
            continue
        wanted = PRIVATE_DIR_MODE if path.is_dir() else PRIVATE_FILE_MODE
        if mode & 0o077:
            found.append(LooseMode(path, mode, wanted))
    return found


def tighten(loose: Iterable[LooseMode]) -> list[LooseMode]:
    """chmod each to its private mode; returns those that could be changed."""
    done = []
    for item in loose:
        with contextlib.suppress(OSError):
            os.chmod(item.path, item.wanted)
            done.append(item)
    return done
