"""Fuzzing the two readers of network input with hypothesis: the KIF reader (and
GDL validation behind it) and the protocol's message parser.

Whatever the text, each either returns a value or raises its own error (a
GdlError, a ProtocolError) with a one-line reason: never another exception,
never a crash. Text built from the grammar reads back to what was printed.
The number of examples is bounded so CI stays quick (`HYPOTHESIS_PROFILE=deep`
for a longer run by hand).
"""

import os

from hypothesis import HealthCheck, given, settings, strategies as st

from ggp_agent.gdl import GdlError, load_game, parse_term, read_forms
from ggp_agent.gdl.terms import Compound, Symbol
from ggp_agent.player.protocol import (
    Abort, Info, PerceptPlay, PerceptStop, Play, ProtocolError, Start, Stop, parse_message,
)

settings.register_profile("ci", max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("deep", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: Characters KIF cares about, and others that Prolog or HTTP would.
_TRICKY = "();?\"'\\|,.:-{}[]`~!#$%^&*+=<>/@ \t\r\n\x00é中"
_texts = st.text(alphabet=st.sampled_from(_TRICKY) | st.characters(), max_size=400)
# A symbol: any run of characters other than whitespace, parentheses and ';',
# not starting with '?' (that is a variable).
_symbols = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="();?\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f \x85\xa0"),
    min_size=1, max_size=12,
).filter(lambda s: not any(ch.isspace() for ch in s))
# A function name: any symbol but the connectives, which cannot head a term.
_functors = _symbols.filter(lambda s: s.lower() not in {"<=", "not", "or", "distinct"})
_terms = st.recursive(
    _symbols.map(Symbol),
    lambda children: st.builds(lambda f, args: Compound(f, tuple(args)), _functors, st.lists(children, min_size=1, max_size=4)),
    max_leaves=20,
)


@given(_texts)
def test_the_kif_reader_returns_forms_or_a_syntax_error(text):
    try:
        read_forms(text)
    except GdlError as error:
        assert "\n" not in str(error).strip()


@given(_texts)
def test_loading_any_text_as_a_game_is_a_game_or_a_gdl_error(text):
    try:
        load_game(text)
    except GdlError:
        pass


@given(st.lists(_terms, max_size=6))
def test_validation_of_arbitrary_well_formed_rules_never_crashes(facts):
    text = " ".join(map(str, facts))
    try:
        load_game(text)
    except GdlError:
        pass


@given(_terms)
def test_a_term_prints_and_reads_back_to_itself(term):
    text = str(term)
    back = parse_term(text)
    # Keywords come back in lower case; every other symbol keeps its case.
    assert str(back).lower() == text.lower()


@given(_texts)
def test_the_message_parser_returns_a_message_or_a_protocol_error(text):
    try:
        parse_message(text)
    except ProtocolError as error:
        assert "\n" not in str(error)


@given(st.sampled_from(["info", "play", "stop", "abort", "start", "preview", "INFO", "PLAY", "Start"]),
       st.lists(_texts | _terms.map(str), max_size=6))
def test_messages_with_a_known_keyword_and_any_arguments(keyword, arguments):
    text = "(" + keyword + " " + " ".join(arguments) + ")"
    try:
        parse_message(text)
    except ProtocolError as error:
        assert "\n" not in str(error)


_match_ids = _symbols.filter(lambda s: s.lower() != "nil")


@given(_match_ids, st.one_of(st.none(), st.lists(_terms, min_size=1, max_size=4).map(tuple)))
def test_play_and_stop_print_and_parse_back(match_id, moves):
    for message in (Play(match_id, moves), Stop(match_id, moves)):
        parsed = parse_message(message.to_kif())
        assert type(parsed) is type(message)
        assert parsed.match_id == match_id
        assert (parsed.moves is None) == (moves is None)
        if moves is not None:
            assert [str(m).lower() for m in parsed.moves] == [str(m).lower() for m in moves]
    assert parse_message(Abort(match_id).to_kif()) == Abort(match_id)
    assert parse_message("( INFO )") == Info()


@given(_match_ids, st.integers(min_value=0, max_value=10**6),
       st.one_of(st.none(), _terms.filter(lambda t: str(t).lower() != "nil")),
       st.lists(_terms, max_size=4).map(tuple))
def test_gdl_ii_play_and_stop_print_and_parse_back(match_id, turn, last_move, percepts):
    for kind in (PerceptPlay, PerceptStop):
        message = kind(match_id, turn, last_move, percepts)
        parsed = parse_message(message.to_kif())
        assert type(parsed) is kind
        assert (parsed.match_id, parsed.turn) == (match_id, turn)
        assert str(parsed.last_move).lower() == str(last_move).lower()
        assert [str(p).lower() for p in parsed.percepts] == [str(p).lower() for p in percepts]


@given(_match_ids, _symbols, st.floats(min_value=0.001, max_value=1e6), st.floats(min_value=0.001, max_value=1e6))
def test_start_prints_and_parses_back(match_id, role, start_clock, play_clock):
    rules = load_game("(role r) (init p) (legal r x) (<= terminal (true q)) (goal r 50)").rules
    message = Start(match_id, Symbol(role), tuple(rules), start_clock, play_clock)
    parsed = parse_message(message.to_kif())
    assert isinstance(parsed, Start) and parsed.match_id == match_id
    assert abs(parsed.start_clock - start_clock) <= 1e-9 * start_clock
    assert abs(parsed.play_clock - play_clock) <= 1e-9 * play_clock
