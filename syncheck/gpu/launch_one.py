"""Launch one fixture kernel once (the process compute-sanitizer watches)."""

from __future__ import annotations

import sys

import numpy as np

from syncheck.gpu.catalog import SANITIZER_CASES
from syncheck.gpu.runner import FIXTURES


def main(fixture: str, kernel: str) -> int:
    import cupy
    case = next(c for c in SANITIZER_CASES if c.fixture == fixture and c.kernel == kernel)
    code = (FIXTURES / fixture).read_text(encoding="utf-8")
    if fixture.endswith(".py"):  # a CuPy host script: take its CUDA source string
        code = _cuda_source_of(code)
    module = cupy.RawModule(code=code, options=("-std=c++17",), name_expressions=(kernel,))
    fn = module.get_function(kernel)
    rng = np.random.default_rng(7)
    args = []
    for kind, value in case.args:
        if kind == "f32":
            args.append(cupy.asarray(rng.standard_normal(value).astype(np.float32)))
        else:
            args.append(np.int32(value))
    try:
        fn(case.grid, case.block, tuple(args), shared_mem=case.shared_bytes)
        cupy.cuda.runtime.deviceSynchronize()
        print("launch: completed")
    except Exception as e:
        print(f"launch: failed ({type(e).__name__}: {str(e)[:120]})")
    return 0


def _cuda_source_of(script: str) -> str:
    import ast
    for node in ast.walk(ast.parse(script)):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and \
                isinstance(node.value.value, str) and "__global__" in node.value.value:
            return node.value.value
    raise ValueError("no CUDA source string in the script")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1], sys.argv[2]))
