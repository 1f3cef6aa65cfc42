"""SYN303 unchecked-cooperative-launch: ignored return code, or support never queried."""

from __future__ import annotations

from syncheck.checks.base import Check, ProjectFacts
from syncheck.diagnostics import Severity


class UncheckedCooperativeLaunch(Check):
    code = "SYN303"
    name = "unchecked-cooperative-launch"
    severity = Severity.WARNING
    scope = "project"

    def run_project(self, project: ProjectFacts):
        cooperative = sorted((l for l in project.launches() if l.cooperative and l.language == "cuda"),
                             key=lambda l: (l.location.path, l.location.line, l.location.column))
        for launch in cooperative:
            if not launch.result_used:
                yield self.at(launch.location, (
                    f"the return code of {launch.api} is ignored: a cooperative launch fails "
                    f"at launch time (grid too large, device without cooperative launch) and "
                    f"the kernel then never runs; check it (e.g. with a CUDA_CHECK macro)"))
        # Support is queried at start-up: without the program's main among the analyzed files
        # (a library, one file of a project checked on its own) the query may be elsewhere.
        if cooperative and project.defines_main and not project.queries_cooperative_support:
            first = cooperative[0]
            yield self.at(first.location, (
                f"cooperative launch of '{first.kernel_name}', but no analyzed file queries "
                f"cudaDevAttrCooperativeLaunch (or cudaDeviceProp::cooperativeLaunch): on a "
                f"device without support the launch fails with cudaErrorNotSupported"))
