"""Rules compiled into a program the evaluator runs (`layout.Program`).

Why a compiler: the evaluator is one set of numba kernels for every game, so
what a game's rules say must become arrays: its relations and views (one per
shape a literal reads a relation by), the indexes its literals look rows up
by, and each rule's operations in the order they run.

The order of a rule's body is chosen here, once: greedily, next the literal
expected to make the fewest rows given what is bound (a literal whose
variables are all bound is a lookup and goes first; a negation or a
`distinct` goes as soon as its variables are bound). Expected rows come from
`Sizes`: the facts a literal matches and how many values each of its
variables takes there (measured: the static relations, the initial state;
or after a few evaluations, `sizes.py`).

The rules must be stratified as given (the demand rewriting happens before);
a negation inside a recursion raises `Unstratified`. This module must not
know about numba or about which relations a game wants.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Optional, Protocol

import numpy as np

from ...gdl.analysis import sentence_of, strongly_connected_components
from ...gdl.normalize import is_positive_sentence
from ...gdl.terms import Compound, Distinct, Not, Rule, Symbol, Variable, relation_key, variables
from ..grounding.term_store import TermStore
from .layout import (
    LEAF_BIND, LEAF_CHECK, LEAF_IGNORE, LEAF_KEY_CONST, LEAF_KEY_VAR, NODE_CONST, NODE_FUNC, NODE_LEAF, NODE_VAR,
    OP_DISTINCT, OP_NEG, OP_SAME, OP_SCAN, Program,
)

RelationKey = tuple[str, int]

#: Expected rows below this count as this: a relation seen empty in the
#: sampled states is not free in every other.
MIN_ROWS = 0.5


class Unstratified(Exception):
    """A relation negates one of its own component (the program cannot run in strata)."""


class Sizes(Protocol):
    """Expected rows of a literal and values of its variables, for the join order."""

    def estimate(self, literal) -> tuple[float, dict[Variable, float]]:
        ...


def constant_id(store: TermStore, name: str) -> int:
    return store.symbol(("c", name))


def tag_id(store: TermStore, functor: str, arity: int) -> int:
    return store.symbol(("f", functor, arity))


def term_id(store: TermStore, term) -> int:
    """The id of a ground term, interned."""
    if isinstance(term, Symbol):
        return constant_id(store, term.name)
    if isinstance(term, Variable):
        raise ValueError(f"{term} is not ground")
    current = tag_id(store, term.functor, len(term.args))
    for arg in term.args:
        current = int(store.pairs(np.array([current]), np.array([term_id(store, arg)]))[0])
    return current


def _shape(term, nodes: list, leaves: list, store: TermStore) -> tuple:
    """Append the preorder shape of `term` to nodes (leaf slots numbered by
    len(leaves)) and its leaves (variables, constants); its key."""
    if isinstance(term, Compound):
        nodes.append((NODE_FUNC, tag_id(store, term.functor, len(term.args)), len(term.args)))
        return (term.functor, tuple(_shape(arg, nodes, leaves, store) for arg in term.args))
    nodes.append((NODE_LEAF, len(leaves), 0))
    leaves.append(term)
    return ()


def _args(sentence) -> tuple:
    return () if isinstance(sentence, Symbol) else sentence.args


def view_key(sentence) -> tuple:
    """The view a sentence reads: (its relation, the shape of its arguments)."""

    def shape(term) -> tuple:
        if isinstance(term, Compound):
            return (term.functor, tuple(shape(arg) for arg in term.args))
        return ()

    return relation_key(sentence), tuple(shape(arg) for arg in _args(sentence))


def leaves_of(sentence) -> list:
    """A sentence's leaves (variables and constants) in the order of its view's cells."""
    found: list = []
    stack = list(reversed(_args(sentence)))
    while stack:
        term = stack.pop()
        if isinstance(term, Compound):
            stack.extend(reversed(term.args))
        else:
            found.append(term)
    return found


@dataclass
class _Parts:
    """The arrays under construction, as lists."""

    rel_index: dict = field(default_factory=dict)
    rel_keys: list = field(default_factory=list)
    rel_views: dict = field(default_factory=lambda: defaultdict(list))
    view_index: dict = field(default_factory=dict)
    view_rel: list = field(default_factory=list)
    view_width: list = field(default_factory=list)
    view_shape: list = field(default_factory=list)
    view_indexes: dict = field(default_factory=lambda: defaultdict(list))
    index_of: dict = field(default_factory=dict)
    index_view: list = field(default_factory=list)
    index_keys: list = field(default_factory=list)
    specs: list = field(default_factory=list)


class _Compiler:
    def __init__(self, store: TermStore, static: frozenset, sizes: Sizes) -> None:
        self.store = store
        self.static = static
        self.sizes = sizes
        self.parts = _Parts()

    # -- relations, views, indexes ---------------------------------------------------------

    def relation(self, key: RelationKey) -> int:
        parts = self.parts
        found = parts.rel_index.get(key)
        if found is None:
            found = parts.rel_index[key] = len(parts.rel_keys)
            parts.rel_keys.append(key)
            self.view(found, tuple(() for _ in range(key[1])), [(NODE_LEAF, i, 0) for i in range(key[1])])
            self.index(parts.rel_views[found][0], tuple(range(key[1])))
        return found

    def view(self, relation: int, shape: tuple, nodes: list) -> int:
        parts = self.parts
        found = parts.view_index.get((relation, shape))
        if found is None:
            found = parts.view_index[(relation, shape)] = len(parts.view_rel)
            parts.view_rel.append(relation)
            parts.view_width.append(sum(1 for kind, _, _ in nodes if kind == NODE_LEAF))
            parts.view_shape.append(nodes)
            parts.rel_views[relation].append(found)
        return found

    def literal_view(self, sentence) -> tuple[int, list]:
        """The view a sentence reads, and its leaves in cell order."""
        relation = self.relation(relation_key(sentence))
        nodes: list = []
        leaves: list = []
        shape = tuple(_shape(arg, nodes, leaves, self.store) for arg in _args(sentence))
        return self.view(relation, shape, nodes), leaves

    def index(self, view: int, keys: tuple) -> int:
        parts = self.parts
        found = parts.index_of.get((view, keys))
        if found is None:
            found = parts.index_of[(view, keys)] = len(parts.index_view)
            parts.index_view.append(view)
            parts.index_keys.append(keys)
            parts.view_indexes[view].append(found)
        return found

    def spec(self, term, registers: dict) -> tuple[int, int]:
        """A term spec's range in the spec pool."""
        specs = self.parts.specs
        lo = len(specs)
        stack = [term]
        while stack:
            item = stack.pop()
            if isinstance(item, Variable):
                specs.append((NODE_VAR, registers[item], 0))
            elif isinstance(item, Symbol):
                specs.append((NODE_CONST, constant_id(self.store, item.name), 0))
            else:
                specs.append((NODE_FUNC, tag_id(self.store, item.functor, len(item.args)), len(item.args)))
                stack.extend(reversed(item.args))
        return lo, len(specs)

    # -- rules -----------------------------------------------------------------------------

    def order(self, rule: Rule, first: Optional[int] = None) -> list:
        """The body in evaluation order (module docstring); the literal at
        index `first` of the body first when given (a semi-naive round's
        delta: the fewest rows)."""
        body = rule.body
        # by index: a literal's hash walks its whole term, and rules of twenty literals are common
        names_of = [frozenset(variables(literal)) for literal in body]
        positives = [i for i, literal in enumerate(body) if is_positive_sentence(literal)]
        tests = [i for i, literal in enumerate(body) if not is_positive_sentence(literal)]
        estimates = {i: self.sizes.estimate(body[i]) for i in positives}
        bound: set = set()
        ordered: list = []
        if first is not None:
            positives.remove(first)
            ordered.append(body[first])
            bound.update(names_of[first])
        while True:
            ready = [t for t in tests if names_of[t] <= bound]
            for test in ready:
                tests.remove(test)
                ordered.append(body[test])
            if not positives:
                break
            best, best_cost = 0, None
            for position, i in enumerate(positives):
                names = names_of[i]
                rows, values = estimates[i]
                shared = names & bound
                for name in shared:
                    rows /= max(1.0, values.get(name, 1.0))
                inside = names <= bound
                if inside:
                    rows = min(rows, 1.0)
                # a literal that shares nothing with what is bound makes a
                # product: only when nothing else is left, or it is a lookup
                apart = bool(bound) and not shared and not inside
                cost = (apart, max(rows, MIN_ROWS), len(names) - len(shared))
                if best_cost is None or cost < best_cost:
                    best, best_cost = position, cost
            chosen = positives.pop(best)
            ordered.append(body[chosen])
            bound.update(names_of[chosen])
        if tests:
            raise ValueError(f"unsafe rule: {rule}")
        return ordered

    def rule(self, rule: Rule, ops: list, leaves: list, first: Optional[int] = None) -> dict:
        """The rule's operations appended to `ops` (their leaves to `leaves`),
        the body literal at index `first` first when given."""
        body = self.order(rule, first)
        uses: dict = defaultdict(int)
        for item in (rule.head, *rule.body):
            for name in variables(item):
                uses[name] += 1
        registers: dict = {}
        first_op = len(ops)
        for literal in body:
            if isinstance(literal, Distinct) or (isinstance(literal, Not) and isinstance(literal.literal, Distinct)):
                inner = literal if isinstance(literal, Distinct) else literal.literal
                a, b = self.spec(inner.left, registers), self.spec(inner.right, registers)
                kind = OP_DISTINCT if isinstance(literal, Distinct) else OP_SAME
                ops.append((kind, -1, -1, len(leaves), a, b))
                continue
            negated = not is_positive_sentence(literal)
            view, terms = self.literal_view(sentence_of(literal))
            leaf0 = len(leaves)
            keys = []
            seen_here: set = set()
            for position, term in enumerate(terms):
                if isinstance(term, Symbol):
                    leaves.append((LEAF_KEY_CONST, constant_id(self.store, term.name)))
                    keys.append(position)
                elif term in registers and term not in seen_here:
                    leaves.append((LEAF_KEY_VAR, registers[term]))
                    keys.append(position)
                elif term in seen_here:
                    leaves.append((LEAF_CHECK, registers[term]))
                elif uses[term] == 1 and not negated:
                    leaves.append((LEAF_IGNORE, 0))
                else:
                    registers[term] = len(registers)
                    seen_here.add(term)
                    leaves.append((LEAF_BIND, registers[term]))
            if negated and len(keys) != len(terms):
                raise ValueError(f"a negation with unbound variables in {rule}")
            index = self.index(view, tuple(keys)) if keys or negated else -1
            ops.append((OP_NEG if negated else OP_SCAN, view, index, leaf0, (0, 0), (0, 0)))
        head_specs = [self.spec(arg, registers) for arg in _args(rule.head)]
        return {"head": self.relation(relation_key(rule.head)), "ops": (first_op, len(ops)),
                "specs": head_specs, "registers": len(registers)}


def compile_program(rules: list[Rule], store: TermStore, static: frozenset, sizes: Sizes,
                    inputs: tuple[RelationKey, ...], outputs: tuple[RelationKey, ...]) -> tuple[Program, list, list]:
    """The program of `rules` (stratified), its relations' keys and its views' keys (`view_key`) by number.
    `static` relations have no rules here: their tuples are loaded once."""
    compiler = _Compiler(store, static, sizes)
    for key in (*inputs, *outputs):
        compiler.relation(key)
    ops: list = []
    leaves: list = []
    found = _components(rules)
    compiled = [compiler.rule(rule, ops, leaves) for rule in rules]
    parts = compiler.parts
    delta_rules: list = [[] for _ in rules]
    components = []
    for members, numbers in found:
        recursive = False
        for number in numbers:
            rule = rules[number]
            for position, literal in enumerate(rule.body):
                if is_positive_sentence(literal) and relation_key(literal) in members:
                    variant = len(compiled)
                    compiled.append(compiler.rule(rule, ops, leaves, first=position))
                    delta_rules[number].append((variant, compiled[variant]["ops"][0]))
                    recursive = True
        views = sorted(v for key in members for v in parts.rel_views[compiler.relation(key)]) if recursive else []
        components.append((numbers, views, recursive))
    delta_rules.extend([] for _ in range(len(compiled) - len(rules)))
    comp_rules = [r for members in components for r in members[0]]
    comp_rule_ptr = np.cumsum([0] + [len(members[0]) for members in components])
    comp_views = [v for members in components for v in members[1]]
    comp_view_ptr = np.cumsum([0] + [len(members[1]) for members in components])
    shape_nodes = [node for nodes in parts.view_shape for node in nodes]
    harg = [span for rule in compiled for span in rule["specs"]]

    def i32(values) -> np.ndarray:
        return np.ascontiguousarray(np.asarray(values, dtype=np.int32).reshape(-1))

    def csr(groups) -> tuple[np.ndarray, np.ndarray]:
        groups = list(groups)
        return i32(np.cumsum([0] + [len(g) for g in groups])), i32([x for g in groups for x in g])

    n_rel = len(parts.rel_keys)
    rel_view_ptr, rel_views = csr(parts.rel_views[r] for r in range(n_rel))
    view_index_ptr, view_indexes = csr(parts.view_indexes[v] for v in range(len(parts.view_rel)))
    index_key_ptr, index_keys = csr(parts.index_keys)
    specs = parts.specs or [(0, 0, 0)]
    program = Program(
        n_rel=n_rel, n_view=len(parts.view_rel), n_index=len(parts.index_view), n_rule=len(compiled),
        n_comp=len(components),
        max_regs=max([rule["registers"] for rule in compiled], default=0),
        max_ops=max([rule["ops"][1] - rule["ops"][0] for rule in compiled], default=0),
        max_width=max(parts.view_width, default=0),
        max_spec=max([hi - lo for lo, hi in harg] + [len(nodes) for nodes in parts.view_shape]
                     + [hi - lo for op in ops for lo, hi in (op[4], op[5])], default=1),
        inputs=i32([parts.rel_index[key] for key in inputs]),
        outputs=i32([parts.rel_index[key] for key in outputs]),
        rel_arity=i32([key[1] for key in parts.rel_keys]),
        rel_view_ptr=rel_view_ptr, rel_views=rel_views,
        rel_dedup=i32([parts.index_of[(parts.rel_views[r][0], tuple(range(parts.rel_keys[r][1])))]
                       for r in range(n_rel)]),
        rel_static=i32([1 if key in static else 0 for key in parts.rel_keys]),
        view_rel=i32(parts.view_rel), view_width=i32(parts.view_width),
        view_shape_ptr=i32(np.cumsum([0] + [len(nodes) for nodes in parts.view_shape])),
        shape_kind=i32([n[0] for n in shape_nodes]), shape_val=i32([n[1] for n in shape_nodes]),
        shape_arity=i32([n[2] for n in shape_nodes]),
        view_index_ptr=view_index_ptr, view_indexes=view_indexes,
        index_view=i32(parts.index_view), index_key_ptr=index_key_ptr, index_keys=index_keys,
        rule_head_rel=i32([rule["head"] for rule in compiled]),
        rule_op_ptr=i32([rule["ops"][0] for rule in compiled] + [len(ops)]),
        rule_harg_ptr=i32(np.cumsum([0] + [len(rule["specs"]) for rule in compiled])),
        harg_lo=i32([lo for lo, _ in harg]), harg_hi=i32([hi for _, hi in harg]),
        rule_delta_ptr=i32(np.cumsum([0] + [len(d) for d in delta_rules])),
        delta_rule=i32([variant for d in delta_rules for variant, _ in d]),
        delta_op=i32([op for d in delta_rules for _, op in d]),
        op_kind=i32([op[0] for op in ops]), op_view=i32([op[1] for op in ops]), op_index=i32([op[2] for op in ops]),
        op_leaf_lo=i32([op[3] for op in ops]),
        op_a_lo=i32([op[4][0] for op in ops]), op_a_hi=i32([op[4][1] for op in ops]),
        op_b_lo=i32([op[5][0] for op in ops]), op_b_hi=i32([op[5][1] for op in ops]),
        leaf_mode=i32([leaf[0] for leaf in leaves]), leaf_val=i32([leaf[1] for leaf in leaves]),
        spec_kind=i32([s[0] for s in specs]), spec_val=i32([s[1] for s in specs]),
        spec_arity=i32([s[2] for s in specs]),
        comp_rule_ptr=i32(comp_rule_ptr), comp_rules=i32(comp_rules),
        comp_rec=i32([1 if members[2] else 0 for members in components]),
        comp_view_ptr=i32(comp_view_ptr), comp_views=i32(comp_views),
    )
    view_keys = [None] * len(parts.view_rel)
    for (relation, shape), view in parts.view_index.items():
        view_keys[view] = (parts.rel_keys[relation], shape)
    return program, list(parts.rel_keys), view_keys


def _components(rules: list[Rule]) -> list:
    """The rules' relations in components, in evaluation order: (relations,
    numbers of their rules); Unstratified when a component negates itself."""
    edges: dict = defaultdict(set)
    negative: list = []
    heads = set()
    for rule in rules:
        head = relation_key(rule.head)
        heads.add(head)
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is None:
                continue
            edges[head].add(relation_key(sentence))
            if not is_positive_sentence(literal):
                negative.append((head, relation_key(sentence)))
    found = strongly_connected_components(sorted(heads), lambda key: sorted(k for k in edges[key] if k in heads))
    component_of = {key: i for i, members in enumerate(found) for key in members}
    for head, body in negative:
        if component_of.get(body) == component_of[head]:
            raise Unstratified(f"{head[0]}/{head[1]} negates {body[0]}/{body[1]} in its own recursion")
    by_component: dict = defaultdict(list)
    for number, rule in enumerate(rules):
        by_component[component_of[relation_key(rule.head)]].append(number)
    return [(set(members), by_component[index]) for index, members in enumerate(found)]


def identity_sizes(default_rows: float = 16.0) -> Sizes:
    """Sizes that know nothing: every literal `default_rows` rows (its author's order breaks ties)."""

    class _Flat:
        def estimate(self, literal):
            return default_rows, {}

    return _Flat()


def kept_rows(relation: Optional[np.ndarray], arity: int) -> np.ndarray:
    """Rows of a static relation as the loader takes them (n x arity, int32, C order)."""
    if relation is None:
        return np.zeros((0, arity), dtype=np.int32)
    rows = np.ascontiguousarray(relation, dtype=np.int32)
    return rows.reshape(len(rows), arity)
