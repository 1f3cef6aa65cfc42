"""Python host code: CuPy RawKernel/RawModule built from CUDA source and launched.

The CUDA source (an inline string, or a file the script reads) goes through the same
pipeline as a .cu file; inline sources' findings are reported at their lines in the .py
file. Launches become LaunchFacts, so SYN301/SYN302 judge them like C++ launches.
"""

from __future__ import annotations

import ast
import os
from dataclasses import dataclass, replace
from typing import Callable

from syncheck.diagnostics import FileProblem, Note
from syncheck.include_policy import read_allowed_file
from syncheck.project import FileFacts, LaunchFact, Location
from syncheck.results import FileResult

_OCCUPANCY_NAMES = ("occupancyMaxActiveBlocksPerMultiprocessor",
                    "cudaOccupancyMaxActiveBlocksPerMultiprocessor")


@dataclass
class _Source:
    text: str
    first_line: int | None   # line of the string in the .py file; None when read from a file
    origin: str              # the .py path or the .cu file read


@dataclass
class _KernelObject:
    kernel_name: str | None
    cooperative: bool
    source: _Source | None
    node: ast.AST


def _read_named_file(path: str) -> str | None:
    """A CUDA file the script names: a regular file within the size limit and the include
    policy (a script in the repository must not make syncheck read /etc/shadow or /dev/zero)."""
    try:
        return read_allowed_file(path).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return None


def _call_name(node: ast.AST) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _keyword(call: ast.Call, name: str):
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    return None


class _Module:
    def __init__(self, path: str, tree: ast.Module):
        self.path = path
        self.dir = os.path.dirname(os.path.abspath(path))
        self.tree = tree
        self.assignments: dict[str, list[ast.AST]] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Name):
                        self.assignments.setdefault(target.id, []).append(node.value)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
                self.assignments.setdefault(node.target.id, []).append(node.value)

    def value_of(self, node: ast.AST, depth: int = 0) -> ast.AST:
        while isinstance(node, ast.Name) and depth < 8 and len(self.assignments.get(node.id, [])) == 1:
            node = self.assignments[node.id][0]
            depth += 1
        return node

    def string(self, node: ast.AST) -> str | None:
        node = self.value_of(node)
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.JoinedStr):
            return None
        return None

    def source(self, node: ast.AST) -> _Source | None:
        """The CUDA text a RawKernel/RawModule is built from."""
        value = self.value_of(node)
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return _Source(value.value, value.lineno, self.path)
        if isinstance(value, ast.Call) and _call_name(value) in ("read", "read_text"):
            path = self._path_of(value.func.value if isinstance(value.func, ast.Attribute) else None)
            text = _read_named_file(path) if path else None
            if text is not None:
                return _Source(text, None, path)
        return None

    def _path_of(self, node) -> str | None:
        node = self.value_of(node) if node is not None else None
        if isinstance(node, ast.Call) and _call_name(node) in ("open", "Path", "PurePath"):
            if node.args:
                name = self.string(node.args[0])
                if name is None:
                    name = self._path_expr(node.args[0])
                return None if name is None else os.path.join(self.dir, name)
        return None

    def _path_expr(self, node) -> str | None:
        node = self.value_of(node)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            right = self.string(node.right)
            return right  # Path(__file__).parent / "k.cu": relative to the script's folder
        return self.string(node)

    def origin_of_grid(self, node: ast.AST, depth: int = 0) -> str:
        """occupancy | constant | data, for a launch's grid expression."""
        node = self.value_of(node)
        names = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Call) and any(o in _call_name(n) for o in _OCCUPANCY_NAMES):
                return "occupancy"
            if isinstance(n, ast.Name):
                names.add(n.id)
        if depth < 6:
            for name in names:
                for value in self.assignments.get(name, []):
                    if self.origin_of_grid(value, depth + 1) == "occupancy":
                        return "occupancy"
        try:
            ast.literal_eval(node)
            return "constant"
        except (ValueError, SyntaxError, TypeError):
            return "data"


def analyze_python(path: str, source: bytes,
                   analyze_cuda: Callable[[str, bytes], FileResult]) -> FileResult:
    """The findings in a Python file's inline CUDA sources and its launches as facts.
    ``analyze_cuda(name, text)`` analyzes one CUDA source (the engine passes its own)."""
    try:
        tree = ast.parse(source.decode("utf-8"), filename=path)
    except SyntaxError as e:
        return FileResult(problems=[FileProblem(path, f"Python syntax error: {e.msg}",
                                                line=e.lineno, column=e.offset)])
    module = _Module(path, tree)
    result = FileResult(facts=FileFacts())
    objects: dict[str, _KernelObject] = {}
    modules: dict[str, tuple[_Source | None, bool]] = {}
    analyzed: dict[int, FileResult] = {}

    def analyze_source(src: _Source) -> FileResult:
        key = id(src.text)
        if key not in analyzed:
            virtual = f"{path}.{src.first_line or 0}.cu" if src.first_line else src.origin
            res = analyze_cuda(virtual, src.text.encode("utf-8"))
            if src.first_line:
                res = _relocate(res, virtual, path, src.first_line)
                result.findings.extend(res.findings)
                result.problems.extend(res.problems)
            result.facts.kernels.extend(res.facts.kernels)
            analyzed[key] = res
        return analyzed[key]

    # Kernel objects: k = cp.RawKernel(src, "name", ...); m = cp.RawModule(code=src); k = m.get_function("name")
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
            continue
        call = node.value
        kind = _call_name(call)
        targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        if kind == "RawKernel":
            code = call.args[0] if call.args else _keyword(call, "code")
            name_node = call.args[1] if len(call.args) > 1 else _keyword(call, "name")
            coop = _keyword(call, "enable_cooperative_groups")
            src = module.source(code) if code is not None else None
            obj = _KernelObject(module.string(name_node) if name_node is not None else None,
                                _is_true(coop), src, call)
            for t in targets:
                objects[t] = obj
        elif kind == "RawModule":
            code = _keyword(call, "code") or (call.args[0] if call.args else None)
            src = module.source(code) if code is not None else None
            if src is None and _keyword(call, "path") is not None:
                p = module.string(_keyword(call, "path"))
                full = os.path.join(module.dir, p) if p else None
                text = _read_named_file(full) if full else None
                if text is not None:
                    src = _Source(text, None, full)
            for t in targets:
                modules[t] = (src, _is_true(_keyword(call, "enable_cooperative_groups")))
        elif kind == "get_function" and isinstance(call.func, ast.Attribute) and \
                isinstance(call.func.value, ast.Name) and call.func.value.id in modules:
            src, coop = modules[call.func.value.id]
            name = module.string(call.args[0]) if call.args else None
            for t in targets:
                objects[t] = _KernelObject(name, coop, src, call)

    for obj in {id(o): o for o in objects.values()}.values():
        if obj.source is not None:
            analyze_source(obj.source)

    # Launches: k(grid, block, args, ...)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        obj = objects.get(node.func.id)
        if obj is None or obj.kernel_name is None:
            continue
        kernel_key = ""
        if obj.source is not None:
            for k in analyzed[id(obj.source.text)].facts.kernels:
                if k.name == obj.kernel_name:
                    kernel_key = k.key
        grid = node.args[0] if node.args else _keyword(node, "grid")
        block = node.args[1] if len(node.args) > 1 else _keyword(node, "block")
        origin = module.origin_of_grid(grid) if (obj.cooperative and grid is not None) else None
        constant = None
        if origin == "constant":
            try:
                value = ast.literal_eval(module.value_of(grid))
                values = value if isinstance(value, tuple) else (value,)
                constant = 1
                for v in values:
                    constant *= int(v)
            except (ValueError, TypeError, SyntaxError):
                constant = None
        end_col = (node.end_col_offset or node.col_offset) + 1
        loc = Location(path, node.lineno, node.col_offset + 1, node.end_lineno or node.lineno,
                       end_col, _enclosing_function(tree, node))
        result.facts.launches.append(LaunchFact(
            kernel_key=kernel_key, kernel_name=obj.kernel_name, api="RawKernel", location=loc,
            cooperative=obj.cooperative, grid_origin=origin,
            grid_text=ast.unparse(grid) if grid is not None else "", grid_constant=constant,
            result_used=True, language="python", block_dim=_constant_shape(module, block)))
    return result


def _constant_shape(module: "_Module", node) -> tuple[int, int, int] | None:
    """A launch's block argument as (x, y, z) when it is a constant: 128 or (32, 8)."""
    if node is None:
        return None
    try:
        value = ast.literal_eval(module.value_of(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    values = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(values) <= 3 or not all(type(v) is int and v > 0 for v in values):
        return None
    return tuple(values) + (1,) * (3 - len(values))  # type: ignore[return-value]


def _is_true(node) -> bool:
    return isinstance(node, ast.Constant) and node.value is True


def _enclosing_function(tree: ast.Module, target: ast.AST) -> str:
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for n in ast.walk(fn):
                if n is target:
                    return fn.name
    return "<module>"


def _relocate(res, virtual: str, path: str, first_line: int):
    """Move findings in an inline CUDA string to their lines in the Python file."""
    shift = first_line - 1

    def loc(p: str, line: int) -> tuple[str, int]:
        return (path, line + shift) if p == virtual else (p, line)

    findings = []
    for f in res.findings:
        p, line = loc(f.path, f.line)
        notes = [Note(*loc(n.path, n.line), n.column, n.message) for n in f.notes]
        findings.append(replace(f, path=p, line=line, end_line=f.end_line + shift if f.path == virtual else f.end_line,
                                notes=notes))
    problems = [replace(pr, path=path, line=(pr.line + shift) if pr.line else pr.line) for pr in res.problems]
    kernels = [replace(k, location=replace(k.location, path=path, line=k.location.line + shift),
                       grid_sync=replace(k.grid_sync, path=path, line=k.grid_sync.line + shift)
                       if k.grid_sync is not None and k.grid_sync.path == virtual else k.grid_sync)
               for k in res.facts.kernels]
    res.findings, res.problems = findings, problems
    res.facts.kernels = kernels
    return res
