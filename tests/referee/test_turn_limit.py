"""The controller's turn limit (`--max-turns`): a game whose rules never end
must not hold a match, or a tournament's worker, forever (here a long game
stands for one). Real matches over HTTP between in-process random and legal
players on the Prolog engine."""

import csv
import logging

import pytest

from ggp_agent.cli.main import main
from ggp_agent.referee.tournament import run_tournament
from ggp_agent.referee.tournament_view import format_summary

#: Two players press a button for twelve turns: longer than any limit the tests
#: set, and yet finite, so a limit that is not applied fails a test instead of
#: hanging it.
LONG = """
(role left) (role right)
(init (step 0))
(<= (next (step ?m)) (true (step ?n)) (succ ?n ?m))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(succ 6 7) (succ 7 8) (succ 8 9) (succ 9 10) (succ 10 11) (succ 11 12)
(<= (legal ?r press) (role ?r))
(<= (legal ?r wait) (role ?r))
(<= terminal (true (step 12)))
(<= (goal ?r 50) (role ?r))
"""


def long_game(tmp_path):
    path = tmp_path / "long.kif"
    path.write_text(LONG, encoding="utf-8")
    return path


def test_a_tournament_aborts_matches_at_the_turn_limit_and_scores_them_for_nobody(tmp_path):
    result = run_tournament(long_game(tmp_path), ["random", "legal"], 2, 5, 1, tmp_path / "out",
                            workers=1, max_turns=3)
    assert not result.failures
    assert [(row["aborted"], row["turns"]) for row in result.rows] == [(True, 3), (True, 3)]
    assert [summary.matches for summary in result.summaries] == [0, 0]
    assert "2 match(es) aborted, scored for nobody: no terminal state after 3 turns" in format_summary(result)
    # the spreadsheet says why, not only that
    with (tmp_path / "out" / "matches.csv").open() as handle:
        rows = list(csv.DictReader(handle))
    assert [row["abort_reason"] for row in rows] == ["no terminal state after 3 turns (the turn limit)"] * 2


def test_the_turn_limit_is_logged_as_a_warning(tmp_path, caplog):
    """A limit the operator set, reached, is expected: not an error (a reasoner
    that fails is one, and says so with its traceback)."""
    with caplog.at_level(logging.WARNING, logger="ggp_agent.referee.controller"):
        main(["match", str(long_game(tmp_path)), "--player", "random", "--player", "legal",
              "--startclock", "5", "--playclock", "1", "--records", str(tmp_path / "records"), "--max-turns", "2"])
    aborts = [record for record in caplog.records if "aborted" in record.getMessage()]
    assert aborts and all(record.levelno == logging.WARNING for record in aborts)


def test_a_resumed_tournament_keeps_its_turn_limit(tmp_path):
    game, out = long_game(tmp_path), tmp_path / "out"
    run_tournament(game, ["random", "legal"], 1, 5, 1, out, workers=1, max_turns=2)
    with pytest.raises(ValueError, match="maxTurns"):
        run_tournament(game, ["random", "legal"], 1, 5, 1, out, workers=1, max_turns=4, resume=True)


def test_cli_match_stops_at_the_turn_limit(tmp_path, capsys):
    code = main(["match", str(long_game(tmp_path)), "--player", "random", "--player", "legal",
                 "--startclock", "5", "--playclock", "1", "--records", str(tmp_path / "records"),
                 "--max-turns", "2"])
    assert code == 1  # not completed
    assert "aborted: no terminal state after 2 turns" in capsys.readouterr().out


def test_cli_rejects_a_turn_limit_below_one(tmp_path, capsys):
    game = str(long_game(tmp_path))
    assert main(["match", game, "--player", "random", "--player", "legal", "--max-turns", "0"]) == 2
    assert "--max-turns must be at least 1 (got 0)" in capsys.readouterr().err
    assert main(["tournament", game, "--players", "random", "legal", "--max-turns", "-1"]) == 2
