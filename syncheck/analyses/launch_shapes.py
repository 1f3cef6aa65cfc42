"""Block shapes that the host code fixes when it launches a kernel."""

from __future__ import annotations

from syncheck.analyses.host_values import HostValues
from syncheck.ir.program import Function, LaunchSite, Program


def launches_of(program: Program, kernel: Function) -> list[LaunchSite]:
    """Launches of this kernel in the file: of exactly this instantiation, or, for a kernel
    analyzed as written, of any of its instantiations."""
    if kernel.instance_of is not None:
        return [l for l in program.launches if l.kernel_instance == kernel.key]
    return [l for l in program.launches if l.kernel_key == kernel.key]


def launch_block_dim(program: Program, kernel: Function) -> tuple[int, int, int] | None:
    """The block shape every launch of the kernel in this file uses, when it is constant."""
    shapes = set()
    for launch in launches_of(program, kernel):
        block = None
        if launch.api == "<<<>>>" and len(launch.config) > 1:
            block = launch.config[1]
        elif launch.api in ("cudaLaunchKernel", "cudaLaunchCooperativeKernel") and len(launch.args) > 2:
            block = launch.args[2]
        if block is None:
            return None
        hv = HostValues(program, program.functions[launch.host_function])
        dims = hv.dim3(block)
        if dims is None:
            return None
        shapes.add(dims)
    return shapes.pop() if len(shapes) == 1 else None
