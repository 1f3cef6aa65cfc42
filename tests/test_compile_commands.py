"""compile_commands.json: flags per file, and the whole project analyzed from it."""

from __future__ import annotations

import json

from tests.conftest import run_cli


def test_compile_commands_gives_flags_and_the_file_list(tmp_path):
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "config.h").write_text("#define LIMIT 64\n")
    (tmp_path / "k.cu").write_text(
        '#include "config.h"\n#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n'
        "__global__ void relax(float* x) {\n#ifdef WITH_GRID_SYNC\n  cg::this_grid().sync();\n#endif\n"
        "  if (threadIdx.x < LIMIT) x[threadIdx.x] = 0.0f;\n}\n")
    (tmp_path / "host.cpp").write_text(
        "#include <cuda_runtime.h>\n__global__ void relax(float* x);\n"
        "int run(float* x) { void* a[] = {&x};\n"
        "  return (int)cudaLaunchKernel((void*)relax, dim3(8), dim3(128), a, 0, 0); }\n")
    db = [{"directory": str(tmp_path), "file": "k.cu",
           "command": "nvcc -Iinclude -DWITH_GRID_SYNC -arch=sm_90 -c k.cu -o k.o"},
          {"directory": str(tmp_path), "file": "host.cpp", "arguments": ["g++", "-c", "host.cpp"]}]
    (tmp_path / "db.json").write_text(json.dumps(db))
    r = run_cli("--format", "json", "--no-cache", "--compile-commands", "db.json", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert data["errors"] == [] and data["files"] == 2
    assert [(f["code"], f["path"].endswith("host.cpp")) for f in data["findings"]] == [("SYN301", True)]
    # without the database the include path is missing: the kernel is not analyzed, and
    # that is said at the kernel, with the flag that fixes it, and in the exit status
    r = run_cli("--format", "json", "--no-cache", "k.cu", "host.cpp", cwd=tmp_path)
    data = json.loads(r.stdout)
    assert r.returncode == 2
    assert [(f["code"], f["function"]) for f in data["findings"]] == [("SYN002", "relax")]
    assert "add -I include" in data["findings"][0]["message"]
    assert any("config.h" in n["message"] for n in data["notes"])
    assert (data["coverage"]["found"], data["coverage"]["analyzed"]) == (1, 0)
    # a compile_commands.json beside the named files is picked up on its own
    (tmp_path / "db.json").rename(tmp_path / "compile_commands.json")
    r = run_cli("--format", "json", "--no-cache", "k.cu", "host.cpp", cwd=tmp_path)
    assert [f["code"] for f in json.loads(r.stdout)["findings"]] == ["SYN301"]
