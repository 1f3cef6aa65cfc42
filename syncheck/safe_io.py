"""Reading files that an untrusted repository controls.

Only regular files are read: a FIFO would block forever, a device (or a symlink to
``/dev/zero``) would be read until memory runs out. Every read is bounded: a file that
grows between the size check and the read is still cut at the limit and refused.
"""

from __future__ import annotations

import os
import stat

MAX_FILE_BYTES = 8 * 1024 * 1024


class UnsafeFileError(OSError):
    """A path that is not a readable regular file of acceptable size; str() is the reason."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


def describe_kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a named pipe (FIFO)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def regular_file_problem(path: str) -> str | None:
    """Why ``path`` must not be read (None when it is a regular file). Follows symlinks."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return f"cannot read file: {e.strerror or e}"
    if stat.S_ISREG(mode):
        return None
    return f"{describe_kind(mode)}, not a regular file; refused"


def read_regular_file(path: str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes.

    Opens without blocking (a FIFO swapped in after a check cannot hang the open) and checks
    the opened descriptor, so a path replaced between check and open is still judged.
    Raises UnsafeFileError with a one-line reason, or OSError for ordinary I/O failures.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise UnsafeFileError(f"cannot read file: {e.strerror or e}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise UnsafeFileError(f"{describe_kind(info.st_mode)}, not a regular file; refused")
        if info.st_size > limit:
            raise UnsafeFileError(too_large_message(info.st_size, limit))
        chunks = []
        total = 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
            if total > limit:
                raise UnsafeFileError(too_large_message(total, limit, grew=True))
        return b"".join(chunks)
    finally:
        os.close(fd)


def too_large_message(size: int, limit: int, grew: bool = False) -> str:
    shown = f"more than {limit / 1e6:.1f} MB" if grew else f"{size / 1e6:.1f} MB"
    return (f"file is too large to analyze ({shown}; the limit is "
            f"{limit // (1024 * 1024)} MiB)")
