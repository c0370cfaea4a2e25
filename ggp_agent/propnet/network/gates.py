"""The propositional network: ground rules as AND/OR gates over the state and the moves.

A node is a constant, a base proposition (one fluent of the state), an input
proposition (one move code), or a gate (AND or OR over literals, a literal
being a node or its negation: `2 * node + negated`). Outputs are literals:
each move code's `legal`, each role's goal values, `terminal`, and each
fluent's `next`. There are no NOT gates: negation lives on the wires.

Built from a `Grounding` in steps that each shrink it:
1. one OR per derived atom over one AND per rule instance (single-literal
   instances and single-instance atoms become plain wires);
2. constants folded with least-fixpoint semantics: a node that is true in
   every state becomes TRUE, one that no state can make true FALSE (a
   positive cycle with no outside support is FALSE, not self-sustaining);
3. gates rebuilt bottom-up: constants removed, duplicate inputs merged,
   `x and not x` folded, one-input gates turned into wires, and identical
   gates merged (hash-consing);
4. gates that feed no output dropped;
5. gates ordered topologically, strongly connected components (recursive
   relations over the state, e.g. connectivity) kept contiguous and marked,
   and the gates split into those before the moves (no input proposition
   upstream: legal, terminal, goals) and those after.

The graph work (steps 1 to 5) runs in `graph_kernels.py` and
`order_kernels.py` (generic numba kernels over integer arrays); this module
keeps the meaning (which atom is which fluent, move, goal) and must not know
about Prolog. It produces numpy
arrays that `arrays.py` packs for the playout kernels.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ...gdl.terms import Term
from ...reasoner.movecodes import MoveCodes
from ...reasoner.statemachine import ReasonerError
from .graph_kernels import fold_constants, raw_graph, rebuild
from .order_kernels import order_gates, renumber
from ..grounding.program import Grounding

LEAF, AND, OR = 0, 1, 2

#: The constant node: literal 0 is FALSE, literal 1 is TRUE.
FALSE, TRUE = 0, 1


class NetworkError(ReasonerError):
    """The ground rules do not make a network we can run (e.g. negation inside a cycle)."""


@dataclass
class Network:
    """A simplified, topologically ordered network and what its nodes mean."""

    roles: tuple[Term, ...]
    #: base proposition i <-> fluent i (node 1 + i)
    fluents: tuple[Term, ...]
    move_codes: MoveCodes
    #: fluent indexes true in the initial state
    init: tuple[int, ...]
    n_nodes: int
    #: LEAF, AND or OR per node
    kind: np.ndarray
    #: inputs of node n: in_lit[in_ptr[n]:in_ptr[n + 1]] (empty for leaves)
    in_ptr: np.ndarray
    in_lit: np.ndarray
    #: gates are nodes first_gate..n_nodes-1 in evaluation order; those before
    #: `split` do not depend on the moves
    first_gate: int
    split: int
    #: per node, the id of its cyclic strongly connected component, or -1
    scc: np.ndarray
    #: literal of each fluent's `next`, each code's `legal`, and `terminal`
    next_lit: np.ndarray
    legal_lit: np.ndarray
    terminal_lit: int
    #: goal outputs: role index, value 0..100, literal
    goal_role: np.ndarray
    goal_value: np.ndarray
    goal_lit: np.ndarray
    stats: dict = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    @property
    def n_fluents(self) -> int:
        return len(self.fluents)

    @property
    def n_codes(self) -> int:
        return len(self.move_codes)

    @property
    def n_gates(self) -> int:
        return self.n_nodes - self.first_gate

    def base_node(self, fluent: int) -> int:
        return 1 + fluent

    def renumbered(self, number: np.ndarray) -> "Network":
        """This network with node n renamed number[n] (a permutation that
        keeps the order topological and every cyclic component contiguous,
        e.g. `order_kernels.gathered_order`); components are numbered again
        in order of position."""
        number = np.asarray(number, dtype=np.int64)
        order = np.argsort(number)  # new -> old
        in_ptr = np.zeros(self.n_nodes + 1, dtype=self.in_ptr.dtype)
        np.cumsum(np.diff(self.in_ptr)[order], out=in_ptr[1:])
        _, old_lits = csr_rows(self.in_ptr, self.in_lit, order)
        scc = self.scc[order]
        ids, first = np.unique(scc[scc >= 0], return_index=True)
        new_id = np.argsort(np.argsort(first))  # ranks by first position
        if len(ids):
            scc = np.where(scc >= 0, new_id[np.searchsorted(ids, np.maximum(scc, 0))], -1).astype(self.scc.dtype)

        def lits(values) -> np.ndarray:
            values = np.asarray(values, dtype=np.int64)
            return (number[values >> 1] << 1) | (values & 1)

        return dataclasses.replace(
            self, kind=self.kind[order], in_ptr=in_ptr, in_lit=lits(old_lits).astype(self.in_lit.dtype), scc=scc,
            next_lit=lits(self.next_lit), legal_lit=lits(self.legal_lit), goal_lit=lits(self.goal_lit),
            terminal_lit=int(lits([self.terminal_lit])[0]))


def csr_rows(ptr: np.ndarray, values: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR rows `rows` of (`ptr`, `values`) one after the other: for each
    value gathered, the index in `rows` of its row, and the values."""
    starts = ptr[rows].astype(np.int64)
    sizes = ptr[rows + 1].astype(np.int64) - starts
    owner = np.repeat(np.arange(len(rows)), sizes)
    offset = np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    return owner, values[np.repeat(starts, sizes) + offset]


class _Deadline:
    def __init__(self, deadline: Optional[float]) -> None:
        self.deadline = deadline

    def check_now(self, where: str) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise NetworkError(f"time limit before {where}")


def build_network(grounding: Grounding, deadline: Optional[float] = None) -> Network:
    """The simplified network of a grounding (see the module docstring).

    `deadline` (a `time.perf_counter()` value) bounds the work: past it the
    build raises `NetworkError`.
    """
    clock = _Deadline(deadline)
    started = time.perf_counter()
    warnings: list[str] = []
    roles = grounding.roles
    role_index = {role: i for i, role in enumerate(roles)}

    # -- leaves: fluents and move codes ----------------------------------------
    dyn_true, _ = grounding.atoms_of(("true", 1))
    dyn_next, static_next = grounding.atoms_of(("next", 1))
    _, static_init = grounding.atoms_of(("init", 1))
    fluent_set = {args[0] for _, args in dyn_next} | {args[0] for args in static_next} | {args[0] for args in static_init}
    fluents = tuple(sorted(fluent_set, key=str))
    fluent_index = {f: i for i, f in enumerate(fluents)}
    init = tuple(sorted({fluent_index[args[0]] for args in static_init}))

    dyn_legal, static_legal = grounding.atoms_of(("legal", 2))
    moves: list[set] = [set() for _ in roles]
    not_roles: dict = {}
    for args in [a for _, a in dyn_legal] + list(static_legal):
        role = role_index.get(args[0])
        if role is None:
            not_roles.setdefault(args[0], []).append(args[1])
            continue
        moves[role].add(args[1])
    for name, ignored in not_roles.items():  # one line per name: Chinese checkers' `hole` has dozens
        warnings.append(f"{len(ignored)} legal move(s) of {name}, which is not a role, ignored "
                        f"(e.g. {ignored[0]})")
    codes = MoveCodes.fixed(moves)
    n_fluents, n_codes = len(fluents), len(codes)
    first_gate = 1 + n_fluents + n_codes

    # -- raw graph: an OR per derived atom, an AND per instance -----------------
    atom_lit = np.full(grounding.n_atoms, -1, dtype=np.int64)
    for atom, args in dyn_true:
        index = fluent_index.get(args[0])
        atom_lit[atom] = 2 * (1 + index) if index is not None else FALSE
    dyn_does, _ = grounding.atoms_of(("does", 2))
    for atom, args in dyn_does:
        role = role_index.get(args[0])
        code = codes.get(role, args[1]) if role is not None else None
        atom_lit[atom] = 2 * (1 + n_fluents + code) if code is not None else FALSE
    clock.check_now("reading the instances")
    kind, in_ptr, in_lit, or_node = raw_graph(grounding.instances, atom_lit, first_gate)
    raw_gates = len(kind) - first_gate

    def atom_literal(encoded: int) -> int:
        atom, negated = divmod(encoded, 2)
        base = int(atom_lit[atom])
        if base < 0:
            base = 2 * int(or_node[atom])
        return base ^ negated

    def output(relation, args_key) -> dict:
        dynamic, static = grounding.atoms_of(relation)
        found = {}
        for atom, args in dynamic:
            found[args_key(args)] = atom_literal(2 * atom)
        for args in static:
            found[args_key(args)] = TRUE
        return found

    legal_by_move = output(("legal", 2), lambda a: (role_index.get(a[0]), a[1]))
    legal_lit = [legal_by_move.get((codes.role_of(c), codes.move_of(c)), FALSE) for c in range(n_codes)]
    next_by_fluent = output(("next", 1), lambda a: a[0])
    next_lit = [next_by_fluent.get(f, FALSE) for f in fluents]
    terminal_lit = output(("terminal", 0), lambda a: ()).get((), FALSE)
    goals = []
    for (role_term, value_term), lit in output(("goal", 2), lambda a: (a[0], a[1])).items():
        role = role_index.get(role_term)
        try:
            value = int(str(value_term))
        except ValueError:
            warnings.append(f"goal value {value_term} of {role_term} is not a number: ignored")
            continue
        if role is None or not 0 <= value <= 100:
            warnings.append(f"goal ({role_term} {value_term}) is not a role's value in 0..100: ignored")
            continue
        goals.append((role, value, lit))
    goals.sort()

    # -- fold, rebuild, order --------------------------------------------------
    outputs = np.asarray(legal_lit + next_lit + [terminal_lit] + [lit for _, _, lit in goals], dtype=np.int64)
    clock.check_now("folding constants")
    constant = fold_constants(kind, in_ptr, in_lit, first_gate)
    clock.check_now("rebuilding gates")
    mapped, new_kind, lo_of, hi_of, lits = rebuild(kind, in_ptr, in_lit, first_gate, constant, outputs)

    def resolved(lit: int) -> int:
        return int(mapped[lit >> 1]) ^ (lit & 1)

    legal_lit = [resolved(lit) for lit in legal_lit]
    next_lit = [resolved(lit) for lit in next_lit]
    terminal_lit = resolved(terminal_lit)
    goals = [(role, value, resolved(lit)) for role, value, lit in goals]
    outputs = np.asarray(legal_lit + next_lit + [terminal_lit] + [lit for _, _, lit in goals], dtype=np.int64)
    clock.check_now("ordering gates")
    order, scc_old, post, bad = order_gates(
        len(new_kind), first_gate, outputs, lo_of, hi_of, lits, 1 + n_fluents)
    if bad:
        raise NetworkError("negation inside a recursive cycle of the ground rules (unstratified)")
    kind, in_ptr, in_lit, scc, split, number = renumber(
        order, first_gate, new_kind, lo_of, hi_of, lits, scc_old, post)
    n_nodes = len(kind)

    def renumbered(lit: int) -> int:
        node = lit >> 1
        return lit if node < first_gate else (int(number[node]) << 1) | (lit & 1)

    network = Network(
        roles=roles,
        fluents=fluents,
        move_codes=codes,
        init=init,
        n_nodes=n_nodes,
        kind=kind,
        in_ptr=in_ptr,
        in_lit=in_lit,
        first_gate=first_gate,
        split=int(split),
        scc=scc.astype(np.int32),
        next_lit=np.asarray([renumbered(l) for l in next_lit], dtype=np.int64),
        legal_lit=np.asarray([renumbered(l) for l in legal_lit], dtype=np.int64),
        terminal_lit=renumbered(terminal_lit),
        goal_role=np.asarray([g[0] for g in goals], dtype=np.int64),
        goal_value=np.asarray([g[1] for g in goals], dtype=np.int64),
        goal_lit=np.asarray([renumbered(g[2]) for g in goals], dtype=np.int64),
        warnings=warnings,
    )
    n_gates = n_nodes - first_gate
    network.stats = {
        "atoms": grounding.n_atoms,
        "instances": grounding.n_instances,
        "raw_gates": raw_gates,
        "gates": n_gates,
        "and_gates": int(np.count_nonzero(kind == AND)),
        "or_gates": int(np.count_nonzero(kind == OR)),
        "edges": int(len(in_lit)),
        "pre_move_gates": int(split) - first_gate,
        "post_move_gates": n_nodes - int(split),
        "cyclic_components": int(scc.max()) + 1 if n_gates else 0,
        "cyclic_gates": int(np.count_nonzero(scc >= 0)),
        "propositions": n_fluents + n_codes,
        "network_s": round(time.perf_counter() - started, 3),
    }
    return network


