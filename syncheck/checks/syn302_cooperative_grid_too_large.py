"""SYN302 cooperative-grid-too-large: a cooperative grid not bounded by occupancy."""

from __future__ import annotations

from syncheck.checks.base import Check, ProjectFacts
from syncheck.diagnostics import Severity


class CooperativeGridTooLarge(Check):
    code = "SYN302"
    name = "cooperative-grid-too-large"
    severity = Severity.WARNING
    scope = "project"

    def run_project(self, project: ProjectFacts):
        for launch in project.launches():
            if not launch.cooperative or launch.grid_origin in (None, "occupancy", "sm_count", "parameter"):
                continue  # sized by occupancy or the SM count, or handed in by an unseen caller
            if launch.grid_origin == "constant":
                what = (f"is the constant {launch.grid_constant} block"
                        f"{'s' if launch.grid_constant != 1 else ''}")
            elif launch.grid_text:
                what = f"('{launch.grid_text}') is not derived from an occupancy query"
            else:  # written inside a macro's argument: no text of its own
                what = "is not derived from an occupancy query"
            message = (f"the grid of this cooperative launch of '{launch.kernel_name}' {what}: all "
                       f"its blocks must be resident at once, or the launch fails with "
                       f"cudaErrorCooperativeLaunchTooLarge; size it with "
                       f"cudaOccupancyMaxActiveBlocksPerMultiprocessor times the SM count")
            yield self.at(launch.location, message)
