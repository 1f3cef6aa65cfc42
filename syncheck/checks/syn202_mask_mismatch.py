"""SYN202 mask-mismatch: a constant partial mask that differs from the lanes executing the call."""

from __future__ import annotations

from syncheck.analyses.lanes import FULL_MASK, active_lanes, lane_list, mask_constant
from syncheck.analyses.levels import Level
from syncheck.analyses.symbolic import lane_outside_mask
from syncheck.checks.base import Check, CheckContext
from syncheck.checks.warp_sites import VALUE_AS_MASK, explicit_mask, mask_is_exchanged_data


def _masks_per_warp(value):
    """warp -> the mask's value in that warp: a constant, or a mask computed at run time that
    is known per warp (a ballot over a condition on threadIdx.x)."""
    constant = mask_constant(value.const)
    if constant is not None:
        return lambda warp: constant
    if value.per_thread is not None and value.level <= Level.WARP:
        values = value.per_thread.values
        return lambda warp: mask_constant(int(values[warp * 32])) if warp * 32 < len(values) else None
    return None


class MaskMismatch(Check):
    code = "SYN202"
    name = "mask-mismatch"

    def _caller_outside_mask(self, ctx: CheckContext, site, frames, node):
        """A mask computed at run time that leaves out a lane which makes the call."""
        root = frames[0].site.function if frames else site.function
        example = lane_outside_mask(ctx.program, ctx.uniformity, root, frames, site, node)
        if example is None:
            return None
        (x, y, z), lane, mask = example
        message = (f"the mask of {site.prim.name} leaves out a lane that executes the call: thread "
                   f"({x}, {y}, {z}) is lane {lane} of its warp and passes mask 0x{mask:08x}; every "
                   f"calling lane must be in the mask")
        shape = 'x'.join(map(str, ctx.uniformity.shape_of(root).block_dim))
        constant = mask_constant(site.arg_values[0].const) is not None if site.arg_values else False
        notes = [ctx.note(node, f"which lanes make the call depends on values known at run time; "
                                f"the block shape is {shape}" if constant else
                                f"the mask is computed at run time here (block shape {shape})")]
        return ctx.finding(self, node, message, site.function.name, notes)

    def _shifted_arguments(self, ctx: CheckContext, site, node, how: str):
        if how == VALUE_AS_MASK:
            message = (f"the mask of {site.prim.name} is '{ctx.text(node)}', {how}: the lanes it names are "
                       f"whatever bits each lane's data has, and differ between lanes; pass the mask of "
                       f"the calling lanes (0xffffffff where the whole warp calls)")
            if site.node.kind == "ASM_STMT":
                # reported at the instruction in the PTX text, the operand as a note
                return ctx.finding(self, site.node, message, site.function.name,
                                   [ctx.note(node, f"'{ctx.text(node)}' is passed as the member mask here")],
                                   at=ctx.place_in_text(site.node, site.prim.name.strip("'")))
            return ctx.finding(self, node, message, site.function.name)
        args = [ctx.text(a) for a in site.args[1:3]]
        message = (f"the mask of {site.prim.name} is '{ctx.text(node)}', {how}: the arguments look "
                   f"shifted by one (a legacy call given the _sync name without a mask), so "
                   f"'{ctx.text(node)}' is taken as the mask of lanes"
                   + (f", '{args[0]}' as the value" if args else "")
                   + (f" and '{args[1]}' as the {'source lane' if site.prim.name == '__shfl_sync' else 'offset'}"
                      if len(args) > 1 else "")
                   + "; pass the mask of the calling lanes first")
        return ctx.finding(self, node, message, site.function.name)

    def _lane_outside_own_mask(self, ctx: CheckContext, site, frames, node, value):
        """A mask known per thread (from the lane id) that leaves out a lane which makes the
        call: each calling lane must name itself."""
        dims = ctx.uniformity.shape_of(frames[0].site.function if frames else site.function).block_dim
        lanes = active_lanes(site, frames, dims[0] if dims and dims[1] * dims[2] == 1 else None)
        if lanes is None:
            return None
        values = value.per_thread.values
        for tid in range(min(len(values), 32 * len(lanes))):
            warp, lane = divmod(tid, 32)
            mask = mask_constant(int(values[tid]))
            if lanes[warp] >> lane & 1 and not mask >> lane & 1:
                message = (f"the mask of {site.prim.name} leaves out a lane that executes the call: "
                           f"lane {lane}{'' if warp == 0 else f' of warp {warp}'} passes mask "
                           f"0x{mask:08x}; every calling lane must be in the mask")
                notes = [ctx.note(node, "the mask differs between the lanes (it is computed from "
                                        "the lane id)")]
                return ctx.finding(self, node, message, site.function.name, notes)
        return None

    def run(self, ctx: CheckContext):
        reported: set[int] = set()
        for site, frames in ctx.uniformity.main_file_sites(every_context=True):
            mask = explicit_mask(site)
            if mask is None or site.node.id in reported:
                continue
            node, value = mask
            if value.from_activemask:
                continue
            shifted = mask_is_exchanged_data(ctx, site)
            if shifted is not None:
                reported.add(site.node.id)
                yield self._shifted_arguments(ctx, site, node, shifted)
                continue
            masks = _masks_per_warp(value)
            if masks is None:
                finding = None
                if value.per_thread is not None:
                    finding = self._lane_outside_own_mask(ctx, site, frames, node, value)
                if finding is None:
                    finding = self._caller_outside_mask(ctx, site, frames, node)
                if finding is not None:
                    reported.add(site.node.id)
                    yield finding
                continue
            dims = ctx.uniformity.shape_of(frames[0].site.function if frames else site.function).block_dim
            lanes = active_lanes(site, frames, dims[0] if dims and dims[1] * dims[2] == 1 else None)
            if lanes is None:
                if masks(0) == 0:
                    # Which lanes run it is unknown here, but a lane that runs it must be in
                    # the mask, and an empty mask names none.
                    reported.add(site.node.id)
                    yield ctx.finding(self, node, f"mask 0x00000000 of {site.prim.name} names no lane: "
                                                  f"every lane that executes the call is outside its "
                                                  f"own mask", site.function.name)
                    continue
                # which lanes run it is not known lane by lane (a loop over the data, a test
                # of a value read at run time): is there a lane outside the mask among those
                # the call's conditions admit?
                finding = self._caller_outside_mask(ctx, site, frames, node) \
                    if masks(0) not in (None, FULL_MASK) else None
                if finding is not None:
                    reported.add(site.node.id)
                    yield finding
                continue
            for warp, active in enumerate(lanes):
                m = masks(warp)
                if m is None or m == FULL_MASK:
                    continue
                missing, extra = active & ~m, m & ~active
                if not active or not (missing or extra):
                    continue
                where = "" if warp == 0 else f" in warp {warp}"
                problems = []
                if missing:
                    problems.append(f"lanes {lane_list(missing)}{where} execute it but are not in the mask")
                if extra:
                    problems.append(f"the mask names lanes {lane_list(extra)}, which never reach it{where}")
                message = (f"mask 0x{m:08x} of {site.prim.name} does not match the lanes that "
                           f"execute the call: {'; '.join(problems)}")
                notes = [ctx.note(site.node, f"lanes that may execute it{where}: "
                                             f"{lane_list(active)} (0x{active:08x})")]
                reported.add(site.node.id)
                yield ctx.finding(self, node, message, site.function.name, notes)
                break
