"""The recognizers of async_ops: inline-PTX strings and wrapper calls into async events."""

from __future__ import annotations

from syncheck.analyses import async_ops as A
from syncheck.ir.nodes import Node


def _asm(template: str, constraints: list[str], literals: list[int | None] | None = None) -> Node:
    node = Node(0, "ASM_STMT")
    node.spelling = template
    node.type = "\x1f".join(constraints)
    for i, value in enumerate(literals or [None] * len(constraints)):
        child = Node(i + 1, "INTEGER_LITERAL" if value is not None else "DECL_REF_EXPR")
        child.value = value
        node.children.append(child)
    return node


def kinds(node):
    return [(e.kind, e.queue) for e in A.asm_events(node)]


def test_group_queues_and_counts():
    assert kinds(_asm("cp.async.commit_group;\n", [])) == [(A.COMMIT, A.Q_CP_ASYNC)]
    ev = A.asm_events(_asm("cp.async.wait_group %0;\n", ["n"], [2]))
    assert (ev[0].kind, ev[0].queue, ev[0].count) == (A.WAIT, A.Q_CP_ASYNC, 2)
    ev = A.asm_events(_asm("cp.async.bulk.wait_group.read 1;", []))
    assert (ev[0].kind, ev[0].queue, ev[0].count) == (A.WAIT, A.Q_BULK, 1)
    assert kinds(_asm("cp.async.wait_all;", [])) == [(A.COMMIT, A.Q_CP_ASYNC), (A.WAIT, A.Q_CP_ASYNC)]
    ev = A.asm_events(_asm("wgmma.wait_group.sync.aligned 1;\n", []))
    assert (ev[0].kind, ev[0].queue, ev[0].count, ev[0].aligned) == (A.WAIT, A.Q_WGMMA, 1, True)


def test_wgmma_operands():
    node = _asm("wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, %4, %5, 1, 1, 1, 0, 0;",
                ["+f", "+f", "+f", "+f", "l", "l"])
    (ev,) = A.asm_events(node)
    assert ev.kind == A.WGMMA_MMA and len(ev.operands) == 4 and len(ev.inputs) == 2


def test_bulk_copies_and_mbarriers():
    load = _asm("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 4096, [%2];",
                ["r", "l", "r"])
    (ev,) = A.asm_events(load)
    assert ev.kind == A.BULK_LOAD and ev.bytes == 4096 and ev.mbar is load.children[2]
    tma = _asm("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];",
               ["r", "l", "r", "r", "r"])
    (ev,) = A.asm_events(tma)
    assert ev.kind == A.BULK_LOAD and ev.mbar is tma.children[4] and ev.bytes is None
    store = _asm("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 512;", ["l", "r"])
    (ev,) = A.asm_events(store)
    assert ev.kind == A.BULK_STORE and ev.src is store.children[1]
    (ev,) = A.asm_events(_asm("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 2048;", ["r"]))
    assert ev.kind == A.MBAR_EXPECT_TX and ev.bytes == 2048
    (ev,) = A.asm_events(_asm("mbarrier.init.shared::cta.b64 [%0], %1;", ["r", "r"], [None, 128]))
    assert ev.kind == A.MBAR_INIT and ev.count == 128
    spin = _asm("{\n.reg .pred done;\nWAIT_%=:\nmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                "@!done bra WAIT_%=;\n}\n", ["r", "r"], [None, 1])
    (ev,) = A.asm_events(spin)
    assert ev.kind == A.MBAR_WAIT and ev.parity == 1


def test_named_barriers_fences_pdl_cluster():
    (ev,) = A.asm_events(_asm("bar.sync 1, 256;", []))
    assert (ev.kind, ev.bar_id, ev.count, ev.aligned) == (A.NAMED_SYNC, 1, 256, True)
    (ev,) = A.asm_events(_asm("barrier.sync %0, %1;", ["r", "r"], [3, 96]))
    assert (ev.kind, ev.bar_id, ev.count, ev.aligned) == (A.NAMED_SYNC, 3, 96, False)
    (ev,) = A.asm_events(_asm("bar.arrive 2, 128;", []))
    assert (ev.kind, ev.bar_id, ev.count) == (A.NAMED_ARRIVE, 2, 128)
    assert kinds(_asm("fence.proxy.async.shared::cta;", [])) == [(A.PROXY_FENCE, "")]
    assert kinds(_asm("griddepcontrol.wait;", [])) == [(A.PDL_WAIT, "")]
    assert [k for k, _ in kinds(_asm("barrier.cluster.arrive.aligned;\nbarrier.cluster.wait.aligned;", []))] == \
        [A.CLUSTER_ARRIVE, A.CLUSTER_WAIT]
    assert kinds(_asm("mapa.shared::cluster.u32 %0, %1, 1;", ["=r", "r"]))[0][0] == A.DSM_MAP
    assert kinds(_asm("st.shared::cluster.f32 [%0], %1;", ["r", "f"]))[0][0] == A.DSM_ACCESS
    # an empty asm with outputs only orders operands; it is not an async operation
    assert kinds(_asm("", ["+f"])) == [(A.OPERAND_FENCE, "")]
