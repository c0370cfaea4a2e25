"""`ggp-agent profile`: perf's hot addresses named by gdb and summed by kernel."""

import shutil
from pathlib import Path

import pytest

from ggp_agent.cli.main import main
from ggp_agent.cli.profile import by_kernel, hot_addresses, kernel_name

from ..helpers import GAMES

PERF_REPORT = """\
# Samples: 23K of event 'cpu-clock:pppH'
#
     3.10%  [.] 0x00007f7500c077af
     4.08%  [.] 0x00007f7500c077a7
     4.96%  [k] clear_page_erms
     0.14%  [.] PyArray_MultiplyList
"""


def test_hot_addresses_are_read_from_perf_report_largest_first():
    assert hot_addresses(PERF_REPORT) == [(4.96, "clear_page_erms"), (4.08, "0x00007f7500c077a7"),
                                          (3.10, "0x00007f7500c077af"), (0.14, "PyArray_MultiplyList")]


def test_a_numba_symbol_reads_as_module_and_function():
    mangled = ("_ZN9ggp_agent6search4tree7descendB4v199B38c8tJTIeFIjxB2IKSgI4CrvQClUZKEGARTQA_3dE2254"
               "Arena_28array_28uint64_2c_201d_2c_20C_29")
    assert kernel_name(mangled) == "search.tree.descend"
    assert kernel_name("_ZN9ggp_agent7propnet7kernels10lane_gates16post_move_sparseB4v12") == \
        "propnet.kernels.lane_gates.post_move_sparse"
    assert kernel_name("clear_page_erms") == "clear_page_erms"


def test_shares_sum_by_kernel_and_an_unnamed_address_stays_unresolved():
    hot = hot_addresses(PERF_REPORT)
    names = {"0x00007f7500c077a7": "search.tree.descend", "0x00007f7500c077af": "search.tree.descend"}
    totals = by_kernel(hot, names)
    assert totals["search.tree.descend"] == pytest.approx(7.18)
    assert totals["clear_page_erms"] == pytest.approx(4.96)
    assert by_kernel(hot, {})["unresolved"] == pytest.approx(7.18)


def _perf_allowed() -> bool:
    try:
        return int(Path("/proc/sys/kernel/perf_event_paranoid").read_text()) <= 2
    except (OSError, ValueError):
        return False


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("perf") is None or shutil.which("gdb") is None or not _perf_allowed(),
                    reason="needs perf (perf_event_paranoid at most 2) and gdb")
def test_profile_names_the_search_kernels_of_a_running_search(capsys):
    """The whole path: a child searches, perf samples it, gdb names the JIT
    code. MCPS on breakthrough spends its time in the descent and the lanes."""
    assert main(["profile", str(GAMES / "breakthrough_6x6.kif"), "--seconds", "2", "--top", "40"]) == 0
    out = capsys.readouterr().out
    assert "breakthrough_6x6, mcps: 2 s sampled" in out
    assert "search.tree.iteration.descend" in out and "propnet.kernels.lane_kernels.choose_moves" in out


def test_profile_rejects_a_broken_game_with_the_rule_before_starting_anything(tmp_path, capsys):
    broken = tmp_path / "broken.kif"
    broken.write_text("(role a)\n(init p)\n(<= (legal a (m ?x)) (true p))\n")
    assert main(["profile", str(broken)]) == 2
    err = capsys.readouterr().err
    assert "unsafe variable ?x" in err and "(<= (legal a (m ?x)) (true p))" in err


def test_profile_rejects_a_bad_option_by_name_before_starting_anything(capsys):
    """The same parser as serve's and bench's: a typo is named, not sampled for seconds."""
    assert main(["profile", str(GAMES / "breakthrough_6x6.kif"), "--option", "leaf_playout=8"]) == 2
    assert "leaf_playout" in capsys.readouterr().err
    assert main(["profile", str(GAMES / "breakthrough_6x6.kif"), "--option", "leaf_playouts"]) == 2
    assert "expected KEY=VALUE" in capsys.readouterr().err
