"""Root parallelism: one tree search per core on the same match, merged when the move is chosen.

`RootParallelSearch` runs N `TreeSearch`es of one rule, each with its own
arena, lanes, random seed and worker thread (numba releases the GIL, so the
threads run on separate cores), and each thinking whenever the single search
would (pondering included). Every tree publishes its root statistics for our
role after each batch (`TreeSearch.root_votes`); `best_move` merges the
published ones without waiting for any worker (`votes.merge_votes`).

Why root parallelism is the default rather than two threads on one tree
(`shared_tree.py`): it keeps every kernel single-threaded (the trees share
only the read-only network) and takes no lock a preempted thread could hold;
at equal time on NoGo 7x7 the shared tree leaned stronger, within the
interval (docs/experiments.md, "What each default setting is worth").
"""

from __future__ import annotations

from typing import Optional, Sequence

from ...gdl.terms import Term
from ...reasoner.statemachine import State
from ..contract.interface import Search
from ..driver.tree_search import TreeSearch
from ..driver.votes import merge_votes


class RootParallelSearch(Search):
    """Several tree searches of one rule merged at the root (see the module docstring)."""

    def __init__(self, searches: Sequence[TreeSearch]) -> None:
        if not searches:
            raise ValueError("a root-parallel search needs at least one tree")
        self.searches = list(searches)
        self.rule = self.searches[0].rule

    def start(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        self._begin(TreeSearch.start, state, legal_moves)

    def prepare(self, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        """Size every tree without starting their workers (`run_for` then thinks)."""
        self._begin(TreeSearch.prepare, state, legal_moves)

    def _begin(self, begin, state: State, legal_moves: Optional[tuple[Term, ...]]) -> None:
        """`begin` each tree at `state`: the first decides the settings left at
        "auto" (codes, priors, `start_choices.py`) and the others adopt its
        decisions, so that the trees agree and START measures once."""
        first, *others = self.searches
        begin(first, state, legal_moves)
        decided = first.decided_settings()
        for search in others:
            search.adopt_settings(*decided)
            begin(search, state, legal_moves)

    def advance(self, joint_move, state: State, legal_moves: Optional[tuple[Term, ...]] = None) -> None:
        for search in self.searches:
            search.advance(joint_move, state, legal_moves)

    def best_move(self) -> Optional[Term]:
        move = self._merged_move()
        if move is None:
            move = self.searches[0].best_move()
        for search in self.searches:
            search.answered()  # without pondering, every tree stops until the next root change
        return move

    def _merged_move(self) -> Optional[Term]:
        votes = [search.root_votes() for search in self.searches]
        return merge_votes(votes, self.searches[0].best_goal())

    def think_until(self, deadline: Optional[float]) -> None:
        for search in self.searches:
            search.think_until(deadline)

    def answer_ready(self) -> bool:
        """True when one tree's move is settled: a proof holds in every tree,
        and the merge takes a proven win and leaves proven losses alone."""
        return any(search.answer_ready() for search in self.searches)

    def hold(self) -> None:
        for search in self.searches:
            search.hold()

    def stop(self) -> None:
        for search in self.searches:
            search.stop()

    def stats(self) -> dict:
        figures = [search.stats() for search in self.searches]
        merged = dict(figures[0])
        merged["parallel"] = "root"
        for key in ("iterations", "playouts", "iterations_per_s", "total_iterations", "nodes", "node_capacity",
                    "memory_mb", "pool_full", "errors", "collections", "lane_collisions"):
            merged[key] = sum(f.get(key, 0) or 0 for f in figures)
        merged["threads"] = len(figures)
        # the trees move their roots one after the other (`advance`): the player waits for them all
        changes = [f["root_change_s"] for f in figures if f.get("root_change_s") is not None]
        if changes:
            merged["root_change_s"] = round(sum(changes), 4)
        move = self._merged_move()
        if move is not None:
            merged["move"] = str(move)
        return merged
