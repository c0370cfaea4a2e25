"""Ensemble Determinization MCTS's rules (`search/hidden/ensemble.py`): the final move
under each aggregation, the margin in trees, the dynamic number of trees, across-tree UCB."""

from __future__ import annotations

import pytest

from ggp_agent.search.hidden.ensemble import EnsembleParams, TreeRoot, decide, next_tree_count, ucb_move
from ggp_agent.search.registry import checked_option, split_options


def tree(visits, values, best=None, weight=1.0):
    best = best if best is not None else max(visits, key=visits.get)
    return TreeRoot(weight, visits, values, best)


def test_each_rule_can_pick_a_different_move():
    # Two trees like move 1 a little, one tree likes move 2 a lot.
    mild = tree({1: 55, 2: 45}, {1: 0.55, 2: 0.50})
    strong = tree({1: 5, 2: 95}, {1: 0.10, 2: 0.90})
    trees = [mild, mild, strong]
    assert decide(trees, "visits").move == 2       # 115 against 185
    assert decide(trees, "score").move == 2        # 1.2 against 1.9
    assert decide(trees, "voting").move == 1       # two votes against one
    assert decide(trees, "borda").move == 1        # two points against one


def test_weights_count_like_repeated_trees():
    a = tree({1: 60, 2: 40}, {1: 0.6, 2: 0.4})
    b = tree({1: 30, 2: 70}, {1: 0.3, 2: 0.7})
    weighted = decide([TreeRoot(2 / 3, a.visits, a.values, a.best), TreeRoot(1 / 3, b.visits, b.values, b.best)],
                      "voting")
    repeated = decide([a, a, b], "voting")
    assert weighted.move == repeated.move == 1
    assert weighted.totals[1] == pytest.approx(2 * weighted.totals[2])


@pytest.mark.parametrize("rule, margin", [("voting", 3), ("visits", 3)])
def test_the_margin_counts_the_trees_that_must_go(rule, margin):
    winner = tree({1: 90, 2: 10}, {1: 0.9, 2: 0.1})
    loser = tree({1: 10, 2: 90}, {1: 0.1, 2: 0.9})
    decision = decide([winner] * 4 + [loser], rule)
    assert decision.move == 1 and decision.runner_up == 2
    assert decision.margin == margin


def test_a_tie_goes_to_the_higher_score():
    a = tree({1: 50, 2: 50}, {1: 0.4, 2: 0.6})
    assert decide([a], "visits").move == 2
    assert decide([a], "visits").margin == 0


def test_the_number_of_trees_follows_the_margins():
    params = EnsembleParams(trees=5, max_trees=6, dynamic=True, streak=2, margin_up=1, margin_down=3)
    assert next_tree_count(5, [0], params) == 5            # not L turns yet
    assert next_tree_count(5, [1, 0], params) == 6         # contested twice: one more
    assert next_tree_count(6, [1, 1], params) == 6         # at most max_trees
    assert next_tree_count(5, [4, 3], params) == 4         # stable twice: one fewer
    assert next_tree_count(1, [9, 9], params) == 1         # at least one
    assert next_tree_count(5, [0, 4], params) == 5         # mixed: unchanged
    assert next_tree_count(5, [0, 0], EnsembleParams(trees=5)) == 5  # static


def test_across_tree_ucb_tries_every_move_then_balances():
    assert ucb_move({1: 3, 2: 0, 3: 1}, {1: 2.0, 2: 0.0, 3: 1.0}, 0.4) == 2
    assert ucb_move({1: 100, 2: 100}, {1: 80.0, 2: 20.0}, 0.4) == 1
    assert ucb_move({1: 1000, 2: 2}, {1: 600.0, 2: 1.0}, 2.0) == 2


def test_settings_are_checked_and_split_from_the_tree_rules():
    assert checked_option("trees", "4") == ("trees", "4")
    with pytest.raises(ValueError, match="aggregate"):
        checked_option("aggregate", "median")
    with pytest.raises(ValueError):
        EnsembleParams(trees=0)
    tree_options, ensemble_options = split_options({"c": "0.5", "trees": "3", "allocation": "ucb"})
    assert tree_options == {"c": "0.5"} and ensemble_options == {"trees": "3", "allocation": "ucb"}
    assert EnsembleParams().with_options(ensemble_options) == EnsembleParams(trees=3, allocation="ucb")
