"""Messages name the accesses as written: an access a macro writes is spelled from the
expression itself, with the macro's use after it (the source text there is the macro's use)."""

from tests.conftest import ROOT


def test_access_in_a_macro_is_spelled_from_the_expression(cli):
    path = ROOT / "fixtures" / "SYN401" / "bad_loop_carried_read_in_do_while_macro.cu"
    r = cli("--no-cache", path)
    assert "reads tile[(threadIdx.x + 1) % 64] (in ACCUMULATE_NEIGHBOUR())" in r.stdout, r.stdout


def test_access_written_out_keeps_its_source_text(cli):
    path = ROOT / "fixtures" / "SYN401" / "bad_two_tiles_one_missing_barrier.cu"
    r = cli("--no-cache", path)
    assert "writes a_tile[t] (line 13)" in r.stdout, r.stdout
