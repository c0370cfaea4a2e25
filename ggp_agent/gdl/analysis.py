"""The dependency graph of a game's relations, and what follows from it.

The validator needs it for stratification and the recursion restriction; the
Prolog compiler needs it to know which relations are recursive (those get tabled)
and which depend on the state; the grounder needs the strata. One graph serves all.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .normalize import is_positive_sentence
from .terms import Distinct, Literal, Not, Rule, relation_key

RelationKey = tuple[str, int]

#: Relations whose truth comes from outside the rules: the state and the moves.
STATE_RELATIONS = frozenset({("true", 1), ("does", 2)})


def sentence_of(literal: Literal):
    """The relation sentence inside a literal (through `not`), or None for distinct."""
    while isinstance(literal, Not):
        literal = literal.literal
    if isinstance(literal, Distinct):
        return None
    return literal


@dataclass
class DependencyGraph:
    """Edges from each body relation to the head relation of its rule."""

    relations: set[RelationKey] = field(default_factory=set)
    #: head -> {body relation: True if some occurrence is negative}
    depends_on: dict[RelationKey, dict[RelationKey, bool]] = field(default_factory=dict)
    #: relation -> id of its strongly connected component
    component: dict[RelationKey, int] = field(default_factory=dict)
    #: component id -> its members
    members: dict[int, frozenset[RelationKey]] = field(default_factory=dict)
    #: relations on a cycle (including self-loops): the recursive ones
    recursive: frozenset[RelationKey] = frozenset()
    #: relations on a cycle of positive edges only: SLD resolution can loop on
    #: these, so the reasoner tables them (a cycle through `not` alone cannot)
    positively_recursive: frozenset[RelationKey] = frozenset()
    #: relations whose value depends on `true` or `does`, directly or not
    state_dependent: frozenset[RelationKey] = frozenset()
    #: relations whose value depends on `does`
    move_dependent: frozenset[RelationKey] = frozenset()
    #: (head, body) pairs where a negative edge closes a cycle: unstratified
    negative_cycles: tuple[tuple[RelationKey, RelationKey], ...] = ()

    def same_component(self, a: RelationKey, b: RelationKey) -> bool:
        return a in self.component and self.component.get(a) == self.component.get(b)


def build_dependency_graph(rules: tuple[Rule, ...]) -> DependencyGraph:
    """The graph of plain (or-free) rules."""
    graph = DependencyGraph()
    positive_edges: dict[RelationKey, dict[RelationKey, bool]] = {}
    for rule in rules:
        head = relation_key(rule.head)
        graph.relations.add(head)
        edges = graph.depends_on.setdefault(head, {})
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is None:
                continue
            body = relation_key(sentence)
            graph.relations.add(body)
            negative = not is_positive_sentence(literal)
            edges[body] = edges.get(body, False) or negative
            if not negative:
                positive_edges.setdefault(head, {})[body] = False
    _strongly_connected_components(graph)
    positive_only = DependencyGraph(
        relations=set(graph.relations),
        depends_on=positive_edges,
    )
    _strongly_connected_components(positive_only)
    graph.positively_recursive = positive_only.recursive
    graph.state_dependent = _reaching(graph, STATE_RELATIONS)
    graph.move_dependent = _reaching(graph, {("does", 2)})
    cycles = []
    for head, edges in graph.depends_on.items():
        for body, negative in edges.items():
            if negative and graph.same_component(head, body):
                cycles.append((head, body))
    graph.negative_cycles = tuple(sorted(cycles))
    return graph


def strongly_connected_components(nodes, successors) -> list[list]:
    """Tarjan's algorithm, iterative (games can have long dependency chains).

    `nodes` in the order roots are tried, `successors(node)` a node's edges in
    the order they are followed. Components come out dependencies first (a
    component after every component it has an edge to), each sorted.

    >>> strongly_connected_components("abc", {"a": "b", "b": "a", "c": "a"}.get)
    [['a', 'b'], ['c']]
    """
    index: dict = {}
    low: dict = {}
    on_stack: set = set()
    stack: list = []
    components: list[list] = []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(successors(root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(successors(child))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
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
                components.append(sorted(members))
    return components


def _strongly_connected_components(graph: DependencyGraph) -> None:
    """The graph's components, and which relations are recursive (on a cycle)."""
    successors = {r: list(graph.depends_on.get(r, {})) for r in graph.relations}
    recursive: set[RelationKey] = set()
    components = strongly_connected_components(sorted(graph.relations), successors.__getitem__)
    for component_id, members in enumerate(components):
        for member in members:
            graph.component[member] = component_id
        graph.members[component_id] = frozenset(members)
        if len(members) > 1 or members[0] in graph.depends_on.get(members[0], {}):
            recursive.update(members)
    graph.recursive = frozenset(recursive)


def _reaching(graph: DependencyGraph, sources) -> frozenset[RelationKey]:
    """Relations that depend (transitively) on any of `sources`."""
    dependents: dict[RelationKey, set[RelationKey]] = {}
    for head, edges in graph.depends_on.items():
        for body in edges:
            dependents.setdefault(body, set()).add(head)
    seen = set()
    frontier = [s for s in sources if s in graph.relations]
    while frontier:
        node = frontier.pop()
        for head in dependents.get(node, ()):
            if head not in seen:
                seen.add(head)
                frontier.append(head)
    return frozenset(seen)
