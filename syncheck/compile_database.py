"""Loading compile_commands.json with every entry checked.

The file comes from the analyzed repository (or its build), so it is read like any other
untrusted input: a regular file within a size limit, and each entry of the expected shape.
A malformed database is one CompileDatabaseError naming the file and the problem.
"""

from __future__ import annotations

import json
import os
import shlex

from syncheck.frontend.parse import CompileDatabase, options_from_compiler_args
from syncheck.safe_io import read_regular_file

MAX_DATABASE_BYTES = 256 * 1024 * 1024


class CompileDatabaseError(Exception):
    """str() is one line: '<path>: <problem>'."""


def load_compile_database(path: str) -> CompileDatabase:
    def fail(problem: str) -> CompileDatabaseError:
        return CompileDatabaseError(f"{path}: {problem}")

    try:
        data = read_regular_file(path, MAX_DATABASE_BYTES)
    except OSError as e:
        raise fail(str(e)) from None
    try:
        raw = json.loads(data)
    except UnicodeDecodeError:
        raise fail("not valid UTF-8") from None
    except json.JSONDecodeError as e:
        raise fail(f"invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    except (ValueError, RecursionError):
        raise fail("invalid JSON") from None
    if not isinstance(raw, list):
        raise fail("expected a JSON array of compile commands")
    base = os.path.dirname(os.path.abspath(path))
    entries = {}
    for i, entry in enumerate(raw):
        where = f"entry {i + 1}"
        if not isinstance(entry, dict):
            raise fail(f"{where} is not an object")
        directory = entry.get("directory", base)
        if not isinstance(directory, str):
            raise fail(f"{where}: 'directory' must be a string")
        file = entry.get("file")
        if not isinstance(file, str) or not file:
            raise fail(f"{where}: 'file' must be a non-empty string")
        if "\0" in file or "\0" in directory:
            raise fail(f"{where}: a path contains a NUL character")
        if "arguments" in entry:
            args = entry["arguments"]
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise fail(f"{where}: 'arguments' must be a list of strings")
        elif "command" in entry:
            command = entry["command"]
            if not isinstance(command, str):
                raise fail(f"{where}: 'command' must be a string")
            try:
                args = shlex.split(command)
            except ValueError as e:
                raise fail(f"{where}: 'command' cannot be split ({e})") from None
        else:
            raise fail(f"{where} has neither 'arguments' nor 'command'")
        full = os.path.normpath(os.path.join(directory, file))
        entries[full] = options_from_compiler_args(args, directory)
    return CompileDatabase(entries)
