"""Notice when the state directory, its lock file or SQLite database is deleted or replaced while the service runs: a
process writes happily to deleted files, and without the lock file a second ``serve`` could start on the account."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from promptpipe.errors import ConfigError
from promptpipe.storage.files import make_private_dir

LOCK_NAME = "promptpipe.lock"


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_dev, info.st_ino


@dataclass(frozen=True)
class StateDirWatch:
    watched: tuple[tuple[Path, tuple[int, int]], ...]

    @classmethod
    def of(cls, state_dir: Path, sqlite_path: Path | None = None) -> StateDirWatch:
        paths = [state_dir, state_dir / LOCK_NAME, *([sqlite_path] if sqlite_path is not None else [])]
        return cls(tuple((path, ident) for path in paths if (ident := _identity(path)) is not None))

    def problem(self) -> str | None:
        """What changed, as one line for the operator; None while all is as at start."""
        for path, ident in self.watched:
            now = _identity(path)
            if now is None:
                return (f"{path} was deleted while the service was running; it stops now so that nothing more is "
                        "written to deleted files. Restore the state directory (or start afresh) and start it again.")
            if now != ident:
                return (f"{path} was replaced by another file while the service was running; it stops now. "
                        "Check what changed the state directory before starting it again.")
        return None


def first_missing(path: Path) -> Path | None:
    """The outermost directory of ``path`` that does not exist yet (what creating it would create), or None."""
    path, missing = path.absolute(), None
    while not path.exists() and path != path.parent:
        missing, path = path, path.parent
    return missing


def ensure_state_dir(path: Path) -> Path:
    """Create the state directory and prove it is writable, or fail with a clear line."""
    try:
        make_private_dir(path)
        probe = path / ".write-test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as exc:
        raise ConfigError(
            f"PROMPTPIPE_STATE_DIR={str(path)!r} is not writable ({exc.strerror or exc}): "
            "choose a directory this user can write to."
        ) from None
    return path
