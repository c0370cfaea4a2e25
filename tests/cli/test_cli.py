"""The command line: check, bench and replay, run in process."""

import json

import pytest

from ggp_agent.cli.main import main

from ..helpers import GAMES, shared_path

TICTACTOE = str(GAMES / "tictactoe.kif")
NOGO_5X5 = str(GAMES / "nogo_5x5.kif")


def test_check_prints_roles_state_moves_and_a_random_match(capsys):
    assert main(["check", TICTACTOE, "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "roles: xplayer oplayer" in out
    assert "initial state: 10 fluents" in out
    assert "legal moves of xplayer: 9: (mark 1 1)" in out
    assert "legal moves of oplayer: 1: noop" in out
    assert "random match:" in out and "terminal, goals:" in out


def test_check_rejects_a_broken_game_with_the_rule(tmp_path, capsys):
    broken = tmp_path / "broken.kif"
    broken.write_text("(role a)\n(init p)\n(<= (legal a (m ?x)) (true p))\n")
    assert main(["check", str(broken)]) == 1
    err = capsys.readouterr().err
    assert "unsafe variable ?x" in err and "(<= (legal a (m ?x)) (true p))" in err


@pytest.mark.parametrize("engine", ["prolog", "propnet"])
def test_check_says_in_plain_words_where_a_role_runs_out_of_moves(tmp_path, capsys, engine):
    """Not `Prolog raised: error(no_legal_move(x),_50)`: the role, the step, the state."""
    stuck = tmp_path / "stuck.kif"
    stuck.write_text("""
        (role x) (role o)
        (init (step 0))
        (succ 0 1) (succ 1 2) (succ 2 3)
        (<= (legal x go) (true (step 0)))
        (<= (legal x go) (true (step 1)))
        (legal o wait)
        (<= (next (step ?n)) (true (step ?m)) (succ ?m ?n))
        (<= terminal (true (step 3)))
        (goal x 100) (goal o 0)
    """)
    assert main(["check", str(stuck), "--engine", engine]) == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"error: {stuck}: role x has no legal move in a state that is not terminal (a broken game), "
                   "after 2 joint moves of a random playout; the state: ((step 2))")


def test_check_names_the_role_without_a_move_in_the_initial_state(tmp_path, capsys):
    stuck = tmp_path / "stuck.kif"
    stuck.write_text("(role a) (role b) (init s) (legal a go) (<= (next t) (does a go)) (<= terminal (true t)) "
                     "(goal a 100) (goal b 0)")
    assert main(["check", str(stuck)]) == 1
    assert "error: role b has no legal move in the initial state (a broken game)" in capsys.readouterr().err


def test_check_rejects_unbalanced_parentheses(tmp_path, capsys):
    broken = tmp_path / "broken.kif"
    broken.write_text("(role a)\n(init (p)\n")
    assert main(["check", str(broken)]) == 1
    assert "unbalanced '('" in capsys.readouterr().err


def test_check_reports_a_missing_file(tmp_path, capsys):
    assert main(["check", str(tmp_path / "nope.kif")]) == 2
    assert "cannot read" in capsys.readouterr().err


def test_bench_json_is_the_last_line(capsys):
    assert main(["bench", TICTACTOE, "--engine", "prolog", "--seconds", "0.3", "--json"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    report = json.loads(last)
    assert report["engine"] == "prolog" and report["game"] == "tictactoe"
    assert report["playouts_per_s"] > 0 and report["state_updates_per_s"] > report["playouts_per_s"]


def test_bench_names_the_engine_the_propnet_gave(capsys):
    # tic-tac-toe grounds whole: the full network; a game past the caps names lazy or hybrid
    assert main(["bench", TICTACTOE, "--engine", "lazy", "--seconds", "0.2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert (report["engine"], report["engine_used"]) == ("lazy", "lazy")
    assert main(["bench", TICTACTOE, "--engine", "auto", "--seconds", "0.2", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert json.loads(out[-1])["engine_used"] == "propnet" and " on auto (propnet): " in out[0]


def test_bench_options_reach_every_search(capsys):
    """`--option` sets a search constant for the benched rules: eight playouts
    per leaf give several iterations per new leaf where one gives about one."""
    per_leaf = {}
    for k in (1, 8):
        assert main(["bench", NOGO_5X5, "--engine", "propnet", "--seconds", "1", "--search", "mcps",
                     "--repeats", "1", "--option", f"leaf_playouts={k}", "--json"]) == 0
        report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        per_leaf[k] = report["search"]["opening"][0]["iterations_per_leaf"]
    assert per_leaf[1] < 1.5 and per_leaf[8] > 4


def test_bench_self_play_says_what_each_tree_kept_of_the_replies(capsys):
    """`--budgets`: per rule, the other side's replies met, the share found in
    the tree, kept with at least 1/1000 of the visits, among the three most
    visited, the mean kept, and the root changes on the mover's clock."""
    assert main(["bench", TICTACTOE, "--engine", "propnet", "--seconds", "0.2", "--search", "mcps",
                 "--repeats", "1", "--budgets", "0.05", "--games", "1", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    reuse = json.loads(out[-1])["search"]["selfplay"][0]["tree_reuse"]
    assert reuse["replies"] >= 3 and 0.5 <= reuse["found"] <= 1.0 and reuse["kept_mean"] > 0
    assert reuse["root_changes_on_our_clock"] >= 3 and reuse["root_change_max_s"] is not None
    assert f"{reuse['replies']} replies, found {reuse['found']}" in "\n".join(out)


@pytest.mark.parametrize("option", ["leaf_playouts", "leaf_playout=2", "leaf_playouts=0"])
def test_bench_rejects_a_bad_option_by_name(option, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["bench", TICTACTOE, "--engine", "prolog", "--seconds", "0.1", "--search", "mcps", "--option", option])
    assert "--option" in str(stop.value) and option.partition("=")[0] in str(stop.value)


def test_replay_agrees_with_the_reference_trace(capsys):
    game = shared_path("gdl-corpus", "games", "ticTacToe.kif")
    trace = shared_path("gdl-corpus", "oracle", "ticTacToe.jsonl")
    assert main(["replay", str(game), str(trace)]) == 0
    assert "all agree: 12 steps and 2 terminal states agree" in capsys.readouterr().out


def write_trace(path, lines):
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")


def tictactoe_trace_lines(last_state_extra=(), legal_o=("noop",)):
    cells = [f"(cell {r} {c} b)" for r in (1, 2, 3) for c in (1, 2, 3)]
    return [
        {"type": "header", "game": "tictactoe", "roles": ["xplayer", "oplayer"], "walks": 1, "max_steps": 500},
        {"type": "step", "walk": 0, "step": 0, "state": cells + ["(control xplayer)"],
         "legal": [[f"(mark {r} {c})" for r in (1, 2, 3) for c in (1, 2, 3)], list(legal_o)],
         "joint": ["(mark 1 1)", "noop"]},
        {"type": "step", "walk": 0, "step": 1,
         "state": sorted(["(cell 1 1 x)"] + cells[1:] + ["(control oplayer)"] + list(last_state_extra)),
         "legal": [["noop"], [f"(mark {r} {c})" for r in (1, 2, 3) for c in (1, 2, 3) if (r, c) != (1, 1)]],
         "joint": ["noop", "(mark 2 2)"]},
    ]


def test_replay_exit_codes_and_first_difference(tmp_path, capsys):
    good = tmp_path / "good.jsonl"
    write_trace(good, tictactoe_trace_lines())
    assert main(["replay", TICTACTOE, str(good)]) == 0
    bad_state = tmp_path / "bad_state.jsonl"
    write_trace(bad_state, tictactoe_trace_lines(last_state_extra=["(ghost 1)"]))
    assert main(["replay", TICTACTOE, str(bad_state)]) == 1
    out = capsys.readouterr().out
    assert "walk 0 step 1: states differ" in out and "only trace: ['(ghost 1)']" in out
    bad_legal = tmp_path / "bad_legal.jsonl"
    write_trace(bad_legal, tictactoe_trace_lines(legal_o=("noop", "(pass)")))
    assert main(["replay", TICTACTOE, str(bad_legal)]) == 1
    assert "legal moves of oplayer differ" in capsys.readouterr().out


def test_replay_exits_2_when_the_engine_gives_up(tmp_path, capsys):
    game = tmp_path / "runaway.kif"
    game.write_text("(role r) (nat 0) (<= (nat (s ?x)) (nat ?x)) (init go) (legal r wait)"
                    " (<= terminal (nat ?x) (true never)) (goal r 0)")
    trace = tmp_path / "trace.jsonl"
    write_trace(trace, [
        {"type": "header", "game": "runaway", "roles": ["r"], "walks": 1, "max_steps": 5},
        {"type": "step", "walk": 0, "step": 0, "state": ["go"], "legal": [["wait"]], "joint": ["wait"]},
    ])
    assert main(["replay", str(game), str(trace), "--time-limit", "0.5"]) == 2
    assert "the engine failed" in capsys.readouterr().out
