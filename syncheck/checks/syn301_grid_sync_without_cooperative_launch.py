"""SYN301 grid-sync-without-cooperative-launch."""

from __future__ import annotations

from syncheck.checks.base import Check, ProjectFacts
from syncheck.diagnostics import Note

_HOW = {
    "<<<>>>": "with <<<...>>>",
    "cudaLaunchKernel": "with cudaLaunchKernel",
    "cudaLaunchKernelEx": "with cudaLaunchKernelEx without cudaLaunchAttributeCooperative",
    "cudaLaunchKernelExC": "with cudaLaunchKernelExC without cudaLaunchAttributeCooperative",
    "cuLaunchKernel": "with cuLaunchKernel",
    "cuLaunchKernelEx": "with cuLaunchKernelEx without CU_LAUNCH_ATTRIBUTE_COOPERATIVE",
    "RawKernel": "from CuPy without enable_cooperative_groups=True",
}


class GridSyncWithoutCooperativeLaunch(Check):
    code = "SYN301"
    name = "grid-sync-without-cooperative-launch"
    scope = "project"

    def run_project(self, project: ProjectFacts):
        for launch in project.launches():
            if launch.cooperative:
                continue
            kernel = project.kernel_for(launch)
            if kernel is None or kernel.grid_sync is None:
                continue
            how = _HOW.get(launch.api, f"with {launch.api}")
            fix = ("launch it with cudaLaunchCooperativeKernel (or cudaLaunchKernelEx with "
                   "cudaLaunchAttributeCooperative)") if launch.language == "cuda" else (
                   "pass enable_cooperative_groups=True to RawKernel/RawModule")
            message = (f"kernel '{kernel.name}' reaches {kernel.grid_sync_text} but is launched "
                       f"{how}: grid sync needs a cooperative launch (an ordinary launch fails "
                       f"with cudaErrorLaunchFailure or hangs); {fix}")
            g = kernel.grid_sync
            yield self.at(launch.location, message,
                          [Note(g.path, g.line, g.column,
                                f"'{kernel.name}' reaches {kernel.grid_sync_text} here, in '{g.function}'")])
