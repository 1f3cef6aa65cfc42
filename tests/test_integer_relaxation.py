"""The race queries' relaxation over the integers (syncheck/analyses/integer_relaxation.py)."""

import z3

from syncheck.analyses.integer_relaxation import relaxed


def _bv(name):
    return z3.BitVec(name, 32)


def _check(formulas):
    solver = z3.Solver()
    solver.add(*formulas)
    return solver.check(), solver


def test_rows_of_a_runtime_width_do_not_meet_without_wrapping():
    # two threads' elements t * w + i (i < w) of rows of a run-time width w are one element
    # only for one thread, over the integers
    t1, t2, i1, i2, w = (_bv(n) for n in ("t1", "t2", "i1", "i2", "w"))
    query = [t1 >= 0, t2 >= 0, t1 < 1024, t2 < 1024, t1 != t2, i1 >= 0, i2 >= 0, i1 < w, i2 < w,
             w < 1 << 24, t1 * w + i1 == t2 * w + i2]
    bit_vector = z3.Solver()
    bit_vector.add(*query)
    assert bit_vector.check() == z3.sat  # wrapping around lets two rows meet
    verdict, _ = _check(relaxed(z3, query).formulas)
    assert verdict == z3.unsat


def test_products_written_in_another_order_share_their_factors():
    # (1 + k) * m * w against m * w * t: the same rows of width m * w
    t1, t2, i1, i2, m, w, k = (_bv(n) for n in ("t1", "t2", "i1", "i2", "m", "w", "k"))
    query = [t1 >= 0, t2 >= 0, t1 < t2, t2 < 1024, k >= 0, k < 4, m >= 1, w >= 1, m < 1 << 10, w < 1 << 10,
             i1 >= 0, i2 >= 0, i1 < m * w, i2 < m * w,
             i1 + (m * w) * t1 == i2 + (m * w) * t2 + ((1 + k) * m) * w]
    verdict, _ = _check(relaxed(z3, query).formulas)
    assert verdict == z3.unsat


def test_masks_and_shifts_keep_their_meaning():
    # lanes of one warp: (t & 31) and t >> 5 name the lane and the warp
    t1, t2 = _bv("t1"), _bv("t2")
    query = [t1 >= 0, t2 >= 0, t1 < 256, t2 < 256, t1 != t2,
             z3.LShR(t1, 5) == z3.LShR(t2, 5), t1 & 31 == t2 & 31]
    verdict, _ = _check(relaxed(z3, query).formulas)
    assert verdict == z3.unsat


def test_terms_it_cannot_read_leave_the_query_to_the_bit_vector_solver():
    x = z3.BitVec("x", 32)
    assert relaxed(z3, [z3.BV2Int(x) > 3]) is None


def test_a_hash_multiplier_may_wrap_around():
    # slots picked by a multiplicative hash meet only through wrapping around: kept
    k1, k2 = _bv("k1"), _bv("k2")
    query = [k1 >= 0, k2 >= 0, k1 < 1000, k2 < 1000, k1 != k2,
             z3.LShR(k1 * 0x9E3779B1, 24) == z3.LShR(k2 * 0x9E3779B1, 24)]
    bit_vector = z3.Solver()
    bit_vector.add(*query)
    assert bit_vector.check() == z3.sat
    verdict, _ = _check(relaxed(z3, query).formulas)
    assert verdict == z3.sat
