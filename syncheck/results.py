"""A file's analysis result and its JSON form.

Results cross two trust boundaries as data: the result cache (a directory anyone may have
written to) and the pipe from a worker process (which parsed untrusted input). Both use this
codec, never pickle: decoding builds only the dataclasses named below, from their declared
field types, and rejects anything of another shape with ResultFormatError.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from dataclasses import dataclass, field

from syncheck.diagnostics import (Edit, FileCoverage, FileProblem, Finding, Fix, Note, Severity,
                                  UnanalyzedFunction)
from syncheck.project import (FieldAssignment, FileFacts, GenericFinding, KernelFact, LaunchFact, Location,
                              ShapeUse)

FORMAT_VERSION = 5


@dataclass
class FileResult:
    findings: list[Finding] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    facts: FileFacts = field(default_factory=FileFacts)
    dependencies: list[str] = field(default_factory=list)  # project headers it included
    coverage: FileCoverage = field(default_factory=FileCoverage)  # device functions analyzed


class ResultFormatError(ValueError):
    """Data that is not a well-formed encoded FileResult; str() says where and why."""


# The only classes the decoder may build. Any field type outside these, the scalars,
# Optional, list and tuple is a programming error caught by the tests.
_DATACLASSES = (FileResult, Finding, Note, FileProblem, FileFacts, KernelFact, LaunchFact, Location,
                FileCoverage, UnanalyzedFunction, Fix, Edit, ShapeUse, GenericFinding, FieldAssignment)
_ENUMS = (Severity,)
_MAX_DEPTH = 12


def encode_result(result: FileResult) -> dict:
    return {"format": FORMAT_VERSION, "result": _encode(result)}


def decode_result(data: object) -> FileResult:
    if not isinstance(data, dict) or set(data) != {"format", "result"}:
        raise ResultFormatError("not a syncheck result")
    if data["format"] != FORMAT_VERSION or type(data["format"]) is not int:
        raise ResultFormatError(f"unsupported result format {data['format']!r}")
    return _decode(FileResult, data["result"], "result", 0)


def dumps_result(result: FileResult) -> str:
    return json.dumps(encode_result(result), separators=(",", ":"))  # ASCII: any path survives


def loads_result(text: str | bytes) -> FileResult:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:  # JSONDecodeError and bad UTF-8 are ValueErrors
        raise ResultFormatError(f"not valid JSON ({type(e).__name__})") from None
    return decode_result(data)


def _encode(value):
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        if type(value) not in _DATACLASSES:
            raise TypeError(f"cannot encode {type(value).__name__}")
        return {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, (list, tuple)):
        return [_encode(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"cannot encode {type(value).__name__}")


_HINTS: dict[type, dict[str, object]] = {}


def _hints(cls: type) -> dict[str, object]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _decode(tp, value, where: str, depth: int):
    if depth > _MAX_DEPTH:
        raise ResultFormatError(f"{where}: nested too deeply")
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        options = typing.get_args(tp)
        if value is None and type(None) in options:
            return None
        rest = [o for o in options if o is not type(None)]
        if len(rest) != 1:
            raise TypeError(f"unsupported field type {tp}")
        return _decode(rest[0], value, where, depth)
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise ResultFormatError(f"{where}: expected a list")
        (item,) = typing.get_args(tp)[:1]
        items = [_decode(item, v, f"{where}[{i}]", depth + 1) for i, v in enumerate(value)]
        return items if origin is list else tuple(items)
    if tp in _DATACLASSES:
        if not isinstance(value, dict):
            raise ResultFormatError(f"{where}: expected an object")
        fields = {f.name: f for f in dataclasses.fields(tp)}
        extra = set(value) - set(fields)
        if extra:
            raise ResultFormatError(f"{where}: unexpected field {sorted(extra)[0]!r}")
        hints = _hints(tp)
        kwargs = {}
        for name, f in fields.items():
            if name not in value:
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                    raise ResultFormatError(f"{where}: missing field {name!r}")
                continue
            kwargs[name] = _decode(hints[name], value[name], f"{where}.{name}", depth + 1)
        return tp(**kwargs)
    if tp in _ENUMS:
        try:
            return tp(value)
        except (ValueError, TypeError):
            raise ResultFormatError(f"{where}: not a {tp.__name__}: {value!r:.40}") from None
    if tp is bool:
        if type(value) is not bool:
            raise ResultFormatError(f"{where}: expected true or false")
        return value
    if tp is int:
        if type(value) is not int:
            raise ResultFormatError(f"{where}: expected an integer")
        return value
    if tp is float:
        if type(value) not in (int, float):
            raise ResultFormatError(f"{where}: expected a number")
        return float(value)
    if tp is str:
        if type(value) is not str:
            raise ResultFormatError(f"{where}: expected a string")
        return value
    raise TypeError(f"unsupported field type {tp}")
