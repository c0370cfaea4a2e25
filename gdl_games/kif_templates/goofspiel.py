"""The Goofspiel template: the library's simultaneous-move game."""

from __future__ import annotations

from .kif import fact_lines, header


def goofspiel_game(prizes: tuple[int, ...]) -> str:
    """Goofspiel: a simultaneous-move bidding game with a fixed prize order."""
    cards = len(prizes)
    total = sum(prizes)
    rounds_text = ", ".join(str(p) for p in prizes)
    text = header(f"Goofspiel with {cards} cards", "goofspiel", f"""
What it is: Goofspiel, a simultaneous-move game. Each player holds the cards
1..{cards}. In each of {cards} rounds both players bid one card from their hand at the
same time; the higher bid wins that round's prize, equal bids win nothing, and
bid cards are spent. The prizes come in a fixed order: {rounds_text}.
The higher total of won prizes wins (100 / 0), equal totals draw (50 / 50).
What it is for: the simultaneous-move case (decoupled selection, one bandit per
role; mixed strategies matter, so a search that plays one fixed best reply
can be exploited). Both roles move every turn: there is no noop.
Grounding: no recursion; scores use fixed (plus ?score ?prize ?sum) and
(more ?a ?b) tables up to {total}, and rounds a (succ ?n ?m) table.""")
    cards_facts = [f"(card {c})" for c in range(1, cards + 1)]
    beats = [f"(beats {a} {b})" for a in range(1, cards + 1) for b in range(1, a)]
    prize = [f"(prize {k} {p})" for k, p in enumerate(prizes, start=1)]
    succ = [f"(succ {k} {k + 1})" for k in range(1, cards + 1)]
    plus = [f"(plus {s} {p} {s + p})" for p in sorted(set(prizes))
            for s in range(0, total - p + 1)]
    more = [f"(more {a} {b})" for a in range(total + 1) for b in range(a)]
    scores = [f"(score-value {s})" for s in range(total + 1)]
    return text + f"""

(role left)
(role right)
(opponent left right) (opponent right left)

{fact_lines(cards_facts)}
{fact_lines(beats)}
{fact_lines(prize)}
{fact_lines(succ)}
{fact_lines(scores, 16)}
{fact_lines(plus, 8)}
{fact_lines(more, 10)}

(<= (base (hand ?p ?c)) (role ?p) (card ?c))
(<= (base (score ?p ?s)) (role ?p) (score-value ?s))
(base (round 1))
(<= (base (round ?m)) (succ ?n ?m))
(<= (input ?p (bid ?c)) (role ?p) (card ?c))

(<= (init (hand ?p ?c)) (role ?p) (card ?c))
(<= (init (score ?p 0)) (role ?p))
(init (round 1))

(<= (legal ?p (bid ?c)) (true (hand ?p ?c)))

(<= (next (hand ?p ?c)) (true (hand ?p ?c)) (not (does ?p (bid ?c))))
(<= (next (round ?m)) (true (round ?n)) (succ ?n ?m))
(<= (takes ?p) (does ?p (bid ?a)) (opponent ?p ?q) (does ?q (bid ?b)) (beats ?a ?b))
(<= (next (score ?p ?t)) (true (score ?p ?s)) (takes ?p) (true (round ?n)) (prize ?n ?v)
    (plus ?s ?v ?t))
(<= (next (score ?p ?s)) (true (score ?p ?s)) (not (takes ?p)))

(<= terminal (true (round {cards + 1})))
(<= (goal ?p 100) (opponent ?p ?q) (true (score ?p ?a)) (true (score ?q ?b)) (more ?a ?b))
(<= (goal ?p 50) (opponent ?p ?q) (true (score ?p ?a)) (true (score ?q ?a)))
(<= (goal ?p 0) (opponent ?p ?q) (true (score ?p ?a)) (true (score ?q ?b)) (more ?b ?a))
"""
