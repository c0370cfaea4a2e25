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

This module must not know about numba or Prolog: it produces numpy arrays that
`arrays.py` packs for the kernels.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..gdl.terms import Term
from ..movecodes import MoveCodes
from ..reasoner.statemachine import ReasonerError
from .grounder import Grounding

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

    def input_node(self, code: int) -> int:
        return 1 + len(self.fluents) + code


class _Deadline:
    def __init__(self, deadline: Optional[float]) -> None:
        self.deadline = deadline
        self.ticks = 0

    def check(self, where: str) -> None:
        self.ticks += 1
        if self.deadline is not None and (self.ticks & 0x3FF) == 0 and time.perf_counter() > self.deadline:
            raise NetworkError(f"time limit while {where}")


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
    for args in [a for _, a in dyn_legal] + list(static_legal):
        role = role_index.get(args[0])
        if role is None:
            warnings.append(f"legal move {args[1]} of {args[0]}, which is not a role: ignored")
            continue
        moves[role].add(args[1])
    codes = MoveCodes.fixed(moves)
    n_fluents, n_codes = len(fluents), len(codes)
    first_gate = 1 + n_fluents + n_codes

    # -- raw graph: an OR per derived atom, an AND per instance -----------------
    atom_lit: dict[int, int] = {}
    for atom, args in dyn_true:
        index = fluent_index.get(args[0])
        atom_lit[atom] = 2 * (1 + index) if index is not None else FALSE
    dyn_does, _ = grounding.atoms_of(("does", 2))
    for atom, args in dyn_does:
        role = role_index.get(args[0])
        code = codes.get(role, args[1]) if role is not None else None
        atom_lit[atom] = 2 * (1 + n_fluents + code) if code is not None else FALSE

    kinds: list[int] = [LEAF] * first_gate
    inputs: list[list[int]] = [[] for _ in range(first_gate)]

    def new_gate(kind: int, ins: list[int]) -> int:
        kinds.append(kind)
        inputs.append(ins)
        return len(kinds) - 1

    atom_or: dict[int, int] = {}
    data = grounding.instances.tolist()
    position = 0
    n_data = len(data)
    while position < n_data:
        clock.check("reading the instances")
        head, count = data[position], data[position + 1]
        literals = data[position + 2: position + 2 + count]
        position += 2 + count
        gate = atom_or.get(head)
        if gate is None:
            if head in atom_lit:  # an instance for true/does cannot happen
                continue
            gate = atom_or[head] = new_gate(OR, [])
        if count == 1:
            inputs[gate].append(-1 - literals[0])  # atom literal, mapped below
        else:
            inputs[gate].append(2 * new_gate(AND, [-1 - lit for lit in literals]))

    def atom_literal(encoded: int) -> int:
        atom, negated = divmod(encoded, 2)
        base = atom_lit.get(atom)
        if base is None:
            gate = atom_or.get(atom)
            base = 2 * gate if gate is not None else FALSE  # no instance: always false
        return base ^ negated

    for gate in range(first_gate, len(kinds)):
        ins = inputs[gate]
        for i, lit in enumerate(ins):
            if lit < 0:
                ins[i] = atom_literal(-1 - lit)

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
    raw_gates = len(kinds) - first_gate

    outputs = legal_lit + next_lit + [terminal_lit] + [lit for _, _, lit in goals]
    simplifier = _Simplifier(kinds, inputs, first_gate, clock)
    simplifier.fold_constants()
    resolved = simplifier.resolve(outputs)
    legal_lit = [resolved(lit) for lit in legal_lit]
    next_lit = [resolved(lit) for lit in next_lit]
    terminal_lit = resolved(terminal_lit)
    goals = [(role, value, resolved(lit)) for role, value, lit in goals]
    outputs = legal_lit + next_lit + [terminal_lit] + [lit for _, _, lit in goals]
    order, scc_of = simplifier.order(outputs, n_codes, n_fluents)

    # -- renumber: leaves keep their numbers, gates follow in order --------------
    new_number = {old: first_gate + i for i, old in enumerate(order)}

    def renumber(lit: int) -> int:
        node = lit >> 1
        return lit if node < first_gate else (new_number[node] << 1) | (lit & 1)

    n_nodes = first_gate + len(order)
    kind = np.zeros(n_nodes, dtype=np.uint8)
    in_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    flat: list[int] = []
    scc = np.full(n_nodes, -1, dtype=np.int32)
    split = n_nodes
    post = simplifier.post
    for i, old in enumerate(order):
        node = first_gate + i
        kind[node] = simplifier.kinds[old]
        flat.extend(renumber(lit) for lit in simplifier.inputs[old])
        in_ptr[node + 1] = len(flat)
        if scc_of.get(old) is not None:
            scc[node] = scc_of[old]
        if post[old] and split == n_nodes:
            split = node
    in_lit = np.asarray(flat, dtype=np.int64)

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
        split=split,
        scc=scc,
        next_lit=np.asarray([renumber(l) for l in next_lit], dtype=np.int64),
        legal_lit=np.asarray([renumber(l) for l in legal_lit], dtype=np.int64),
        terminal_lit=renumber(terminal_lit),
        goal_role=np.asarray([g[0] for g in goals], dtype=np.int64),
        goal_value=np.asarray([g[1] for g in goals], dtype=np.int64),
        goal_lit=np.asarray([renumber(g[2]) for g in goals], dtype=np.int64),
        warnings=warnings,
    )
    network.stats = {
        "atoms": grounding.n_atoms,
        "instances": grounding.n_instances,
        "raw_gates": raw_gates,
        "gates": len(order),
        "and_gates": int(np.count_nonzero(kind == AND)),
        "or_gates": int(np.count_nonzero(kind == OR)),
        "edges": len(flat),
        "pre_move_gates": split - first_gate,
        "post_move_gates": n_nodes - split,
        "cyclic_components": len(set(scc_of.values())),
        "cyclic_gates": len(scc_of),
        "propositions": n_fluents + n_codes,
        "network_s": round(time.perf_counter() - started, 3),
    }
    return network


class _Simplifier:
    """Constant folding, rebuilding and ordering of a raw gate graph."""

    def __init__(self, kinds: list[int], inputs: list[list[int]], first_gate: int, clock: _Deadline) -> None:
        self.kinds = kinds
        self.inputs = inputs
        self.first_gate = first_gate
        self.clock = clock
        self.constant: dict[int, int] = {}
        self.post: dict[int, bool] = {}

    # -- step 2: constants ---------------------------------------------------

    def fold_constants(self) -> None:
        """Mark gates true in every state (TRUE) or in none (FALSE)."""
        n = len(self.kinds)
        fanout: list[list[int]] = [[] for _ in range(n)]  # one entry per positive wire
        for gate in range(self.first_gate, n):
            for lit in self.inputs[gate]:
                if not lit & 1:
                    fanout[lit >> 1].append(gate)
        leaves_possible = [node != 0 for node in range(self.first_gate)]
        leaves_certain = [False] * self.first_gate
        certain = [False] * n
        while True:
            self.clock.check("folding constants")
            possible = self._least_fixpoint(fanout, leaves_possible, lambda node: not certain[node])
            new_certain = self._least_fixpoint(fanout, leaves_certain, lambda node: not possible[node])
            if new_certain == certain:
                break
            certain = new_certain
        for gate in range(self.first_gate, n):
            if certain[gate]:
                self.constant[gate] = TRUE
            elif not possible[gate]:
                self.constant[gate] = FALSE

    def _least_fixpoint(self, fanout, leaf_value, negated_true) -> list[bool]:
        """Least model of the gates given leaf values; a negated input counts as
        true when `negated_true(node)` (fixed during this pass)."""
        n = len(self.kinds)
        value = list(leaf_value) + [False] * (n - self.first_gate)
        satisfied = [0] * n
        need = [0] * n
        work = []
        for gate in range(self.first_gate, n):
            ins = self.inputs[gate]
            need[gate] = len(ins) if self.kinds[gate] == AND else 1
            count = 0
            for lit in ins:
                node = lit >> 1
                if lit & 1:
                    count += negated_true(node)
                elif node < self.first_gate and value[node]:
                    count += 1
            satisfied[gate] = count
            if count >= need[gate] and (self.kinds[gate] == AND or ins):
                value[gate] = True
                work.append(gate)
        while work:
            node = work.pop()
            for gate in fanout[node]:
                if value[gate]:
                    continue
                satisfied[gate] += 1
                if satisfied[gate] >= need[gate]:
                    value[gate] = True
                    work.append(gate)
        return value

    # -- step 3: rebuild ------------------------------------------------------

    def resolve(self, outputs: list[int]):
        """Rebuild the gates reachable from `outputs`; return the literal map."""
        first_gate = self.first_gate
        kinds, inputs, constant = self.kinds, self.inputs, self.constant
        result: dict[int, int] = {}
        on_stack: set[int] = set()
        pinned: set[int] = set()
        canonical: dict[tuple, int] = {}
        new_inputs: dict[int, list[int]] = {}

        def literal(lit: int) -> Optional[int]:
            node = lit >> 1
            if node < first_gate:
                return lit
            if node in constant:
                return constant[node] ^ (lit & 1)
            mapped = result.get(node)
            if mapped is None:
                return None
            return mapped ^ (lit & 1)

        for root in outputs:
            if literal(root) is not None:
                continue
            stack = [(root >> 1, 0)]
            on_stack.add(root >> 1)
            while stack:
                self.clock.check("rebuilding gates")
                node, position = stack[-1]
                ins = inputs[node]
                descended = False
                while position < len(ins):
                    child = ins[position] >> 1
                    position += 1
                    if literal(2 * child) is None:
                        if child in on_stack:
                            pinned.add(child)  # a cycle: the node keeps its identity
                            continue
                        stack[-1] = (node, position)
                        stack.append((child, 0))
                        on_stack.add(child)
                        descended = True
                        break
                if descended:
                    continue
                stack.pop()
                on_stack.discard(node)
                result[node] = self._build(node, pinned, canonical, new_inputs, literal)
        # gates referenced inside a cycle before they were built keep their own
        # number; their inputs may still name other pinned gates by number
        for node in pinned:
            if result.get(node) != 2 * node:
                # built to an alias or constant after being referenced: keep an
                # identity gate in its place
                target = result[node]
                new_inputs[node] = [target]
                kinds[node] = OR
                result[node] = 2 * node
        for node, ins in new_inputs.items():
            inputs[node] = [literal(lit) if literal(lit) is not None else lit for lit in ins]
        self.live = {node for node, lit in result.items() if lit == 2 * node}

        def resolved(lit: int) -> int:
            mapped = literal(lit)
            return lit if mapped is None else mapped

        return resolved

    def _build(self, node, pinned, canonical, new_inputs, literal) -> int:
        kind = self.kinds[node]
        absorbing = FALSE if kind == AND else TRUE  # a FALSE input ends an AND
        neutral = absorbing ^ 1
        seen = set()
        ins = []
        for lit in self.inputs[node]:
            mapped = literal(lit)
            if mapped is None:  # a pinned gate inside a cycle
                mapped = lit
            if mapped == neutral or mapped in seen:
                continue
            if mapped == absorbing or (mapped ^ 1) in seen:
                return absorbing
            seen.add(mapped)
            ins.append(mapped)
        if not ins:
            return neutral
        if len(ins) == 1 and node not in pinned:
            return ins[0]
        ins.sort()
        key = (kind, tuple(ins))
        if node not in pinned:
            existing = canonical.get(key)
            if existing is not None:
                return 2 * existing
            canonical[key] = node
        new_inputs[node] = ins
        self.inputs[node] = ins
        return 2 * node

    # -- steps 4 and 5: live gates, order, components -----------------------------

    def order(self, outputs: list[int], n_codes: int, n_fluents: int):
        """Live gates in evaluation order (pre-move first) and their cyclic components."""
        first_gate = self.first_gate
        inputs = self.inputs
        live: set[int] = set()
        stack = [lit >> 1 for lit in outputs if (lit >> 1) >= first_gate]
        while stack:
            node = stack.pop()
            if node in live:
                continue
            live.add(node)
            for lit in inputs[node]:
                child = lit >> 1
                if child >= first_gate and child not in live:
                    stack.append(child)
        components = _components(sorted(live), inputs, first_gate, self.clock)
        input_lo = 1 + n_fluents
        scc_of: dict[int, int] = {}
        post = self.post
        pre_order, post_order = [], []
        cyclic_id = 0
        for members in components:
            member_set = set(members)
            cyclic = len(members) > 1 or any((lit >> 1) == members[0] for lit in inputs[members[0]])
            is_post = False
            for node in members:
                for lit in inputs[node]:
                    child = lit >> 1
                    if child in member_set:
                        if lit & 1:
                            raise NetworkError("negation inside a recursive cycle of the ground rules (unstratified)")
                        continue
                    if input_lo <= child < first_gate or post.get(child, False):
                        is_post = True
            for node in members:
                post[node] = is_post
                if cyclic:
                    scc_of[node] = cyclic_id
            if cyclic:
                cyclic_id += 1
            (post_order if is_post else pre_order).extend(members)
        return pre_order + post_order, scc_of


def _components(nodes: list[int], inputs, first_gate: int, clock: _Deadline) -> list[list[int]]:
    """Tarjan's strongly connected components over gate -> input edges, emitted
    inputs first (an evaluation order), iterative."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    result: list[list[int]] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            clock.check("ordering gates")
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            ins = inputs[node]
            recurse = False
            while position < len(ins):
                child = ins[position] >> 1
                position += 1
                if child < first_gate:
                    continue
                if child not in index:
                    work.append((node, position))
                    work.append((child, 0))
                    recurse = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if recurse:
                continue
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                result.append(members)
    return result
