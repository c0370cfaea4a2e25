"""Protocol messages: parsing (as match servers write them), printing, replies."""

import pytest

from ggp_agent.gdl import Compound, Symbol
from ggp_agent.player.protocol import (
    Abort, Info, MalformedMessageError, PerceptPlay, PerceptStop, Play, ProtocolError,
    Start, Stop, UnknownMessageError, info_reply, parse_info_reply, parse_message, safe_name,
)

RULES = "((role xplayer) (role oplayer) (init (cell 1 1 b)) (<= terminal (true (cell 1 1 x))))"


def test_keywords_are_case_insensitive_and_spacing_is_free():
    assert parse_message("(INFO)") == Info()
    assert parse_message("( info )") == Info()
    assert parse_message("info") == Info()
    play = parse_message("( PLAY ggpref.ticTacToe.1 (( mark 1 1 ) noop ) )")
    assert play == Play("ggpref.ticTacToe.1", (Compound("mark", (Symbol("1"), Symbol("1"))), Symbol("noop")))
    assert parse_message("(play m NIL)") == Play("m", None)
    assert parse_message("(Stop m nil)") == Stop("m", None)
    assert parse_message("(ABORT m)") == Abort("m")


def test_start_keeps_case_of_ids_roles_and_rules():
    start = parse_message(f"(START Match.X oPlayer {RULES.replace('xplayer', 'xPlayer')} 30 15)")
    assert isinstance(start, Start)
    assert start.match_id == "Match.X"
    assert start.role == Symbol("oPlayer")
    assert start.start_clock == 30 and start.play_clock == 15
    assert str(start.rules[0]) == "(role xPlayer)"
    assert str(start.rules[-1]) == "(<= terminal (true (cell 1 1 x)))"


def test_messages_print_back_as_they_parse():
    for text in [
        "(info)",
        f"(start m1 xplayer {RULES} 10 2)",
        f"(preview {RULES} 5)",
        "(play m1 nil)",
        "(play m1 ((mark 1 1) noop))",
        "(stop m1 ((mark 1 1) noop))",
        "(abort m1)",
    ]:
        message = parse_message(text)
        assert message.to_kif() == text
        assert parse_message(message.to_kif()) == message


def test_gdl_ii_play_and_stop_are_told_apart_by_their_shape():
    first = parse_message("(PLAY match.7 0 NIL NIL)")
    assert first == PerceptPlay("match.7", 0, None, ())
    later = parse_message("(play match.7 3 (mark 1 2) ((failed (mark 1 2)) yourTurn))")
    assert later == PerceptPlay(
        "match.7", 3, Compound("mark", (Symbol("1"), Symbol("2"))),
        (Compound("failed", (Compound("mark", (Symbol("1"), Symbol("2"))),)), Symbol("yourTurn")),
    )
    assert parse_message("(STOP match.7 4 noop ())") == PerceptStop("match.7", 4, Symbol("noop"), ())
    # The GDL forms keep their meaning: two arguments are the last joint move.
    assert parse_message("(play match.7 ((mark 1 2) noop))") == Play(
        "match.7", (Compound("mark", (Symbol("1"), Symbol("2"))), Symbol("noop"))
    )


def test_gdl_ii_messages_print_back_as_they_parse():
    for text in [
        "(play m1 0 nil nil)",
        "(play m1 3 (mark 1 1) ((saw (cell 1 1 o)) ok))",
        "(stop m1 9 noop (won))",
        "(stop m1 2 (guess heads) nil)",
    ]:
        message = parse_message(text)
        assert message.to_kif() == text
        assert parse_message(message.to_kif()) == message
    # Empty percepts after turn 0, written either way, are the same message.
    assert parse_message("(play m1 2 noop ())") == parse_message("(play m1 2 noop nil)")


def test_fractional_clocks():
    start = parse_message(f"(start m r {RULES} 2.5 0.75)")
    assert (start.start_clock, start.play_clock) == (2.5, 0.75)
    assert start.to_kif().endswith(" 2.5 0.75)")


@pytest.mark.parametrize("text, error, words", [
    ("", MalformedMessageError, "empty"),
    ("   \n ", MalformedMessageError, "empty"),
    ("(hello world)", UnknownMessageError, "unknown message 'hello'"),
    ("(play m1)", MalformedMessageError, "'play' takes 2 arguments (MOVES) or 4 (GDL-II: TURN LASTMOVE PERCEPTS), got 1"),
    ("(stop m1 0 nil)", MalformedMessageError, "'stop' takes 2 arguments (MOVES) or 4 (GDL-II"),
    ("(play m1 0 nil nil nil)", MalformedMessageError, "got 5"),
    ("(play m1 one nil nil)", MalformedMessageError, "the turn must be a whole number, not one"),
    ("(play m1 -1 nil nil)", MalformedMessageError, "the turn must be a whole number, not -1"),
    ("(play m1 2.5 noop nil)", MalformedMessageError, "the turn must be a whole number"),
    ("(play m1 (1) noop nil)", MalformedMessageError, "the turn must be a whole number, not (1)"),
    ("(play m1 \u0663 noop nil)", MalformedMessageError, "the turn must be a whole number"),
    ("(play m1 1 (mark ?x 1) nil)", MalformedMessageError, "the last move (mark ?x 1) holds a variable"),
    ("(play m1 1 () nil)", MalformedMessageError, "bad last move"),
    ("(stop m1 1 noop seen)", MalformedMessageError, "percepts must be nil or a list of percepts, not seen"),
    ("(play m1 1 noop ((saw ?y)))", MalformedMessageError, "the percept (saw ?y) holds a variable"),
    ("(play m1 1 noop (()))", MalformedMessageError, "bad percept"),
    ("(play (m 1) 1 noop nil)", MalformedMessageError, "match id is a symbol"),
    ("(info extra)", MalformedMessageError, "'info' takes 0"),
    (f"(start m1 xplayer {RULES} ten 2)", MalformedMessageError, "start clock must be a number"),
    (f"(start m1 xplayer {RULES} 10 -2)", MalformedMessageError, "play clock must be a number"),
    (f"(start m1 xplayer {RULES} 10 nan)", MalformedMessageError, "play clock"),
    (f"(start m1 xplayer {RULES} 10 (2))", MalformedMessageError, "play clock"),
    ("(start m1 xplayer role 10 2)", MalformedMessageError, "rules must be a parenthesized list"),
    ("(start m1 xplayer ((<= )) 10 2)", MalformedMessageError, "bad rules"),
    ("(play m1 ((mark 1 1) noop)", MalformedMessageError, "not well-formed"),
    ("(play m1 nil))", MalformedMessageError, "not well-formed"),
    ("(info) (info)", MalformedMessageError, "expected one message"),
    ("((play) m1 nil)", MalformedMessageError, "starts with a keyword"),
    ("(play (m 1) nil)", MalformedMessageError, "match id is a symbol"),
    ("(play m1 ((mark ?x 1) noop))", MalformedMessageError, "holds a variable"),
    ("(play m1 something)", MalformedMessageError, "nil or a list"),
    ("\x00\xff\ufffd((", MalformedMessageError, "not well-formed"),
])
def test_bad_messages_raise_one_line_reasons(text, error, words):
    with pytest.raises(error) as raised:
        parse_message(text)
    assert isinstance(raised.value, ProtocolError)
    reason = str(raised.value)
    assert words in reason
    assert "\n" not in reason
    assert len(reason) < 400


def test_deep_nesting_is_refused_not_a_crash():
    with pytest.raises(MalformedMessageError):
        parse_message("(play m1 " + "(" * 100_000 + ")" * 100_000 + ")")


def test_info_reply_forms():
    assert info_reply("bob", busy=False) == "((name bob) (status available))"
    assert info_reply("bob", busy=True) == "((name bob) (status busy))"
    assert parse_info_reply("((name bob) (status busy))") == {"name": "bob", "status": "busy"}
    assert parse_info_reply("available") == {"status": "available"}
    assert safe_name("my (cool) agent") == "my__cool__agent"
