"""The grounder: every ground rule instance the propnet needs, through SWI-Prolog.

Why Prolog: the fixpoint over a game's relations is a query SWI computes in C
far faster than a Python loop would, and the reasoner already runs a game's
rules safely there (terms built as data, one module per game, every call on
the Prolog thread under a time limit).

The domain is the least model of a relaxed program (`grounder.pl` says how it
is built): with `base`/`input` when the game has them and they prove complete
(init and next inside base, legal inside input), else the fixpoint of
`true <- init | next` and `does <- legal`, with negation on state-dependent
relations ignored (`distinct` and negation of static relations still apply).
Static relations are computed exactly and vanish from the instances: a static
literal that holds is dropped, an instance with one that fails never appears.
Relations are computed bottom up, one strongly connected component at a time,
each reading the facts of those below; only recursive components are tabled.
Before the instances are enumerated, the rules of state-dependent relations
are factored (`rules.Factoring`) using the measured sizes of their literals.

What comes out (`Grounding`): the atoms of the state-dependent relations,
numbered from 0, and each ground instance as integers (head atom, literal
count, literals `2 * atom + negated`); the atoms of `true`, `does`, `legal`,
`goal`, `terminal` and `next` as terms, and the static answers of those
relations and of `init` and `role`.

Grounding is bounded: a time limit over all of it (Prolog's
`call_with_time_limit` for each step), a cap on answers and one on instances.
Giving up raises `GroundingError`, which says where (which relation or rule)
and why. This module must not build the network: it stops at integers.
"""

from __future__ import annotations

import itertools
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from ..gdl.analysis import sentence_of, strongly_connected_components
from ..gdl.normalize import is_positive_sentence
from ..gdl.terms import Compound, Rule, Term, Variable, parenthesized_names, relation_key
from ..gdl.validate import ValidatedGame
from ..reasoner import prolog_terms as pt
from ..reasoner import swipl
from ..reasoner.prolog_query import call_predicate, consult_runtime
from ..reasoner.prolog_thread import PrologThread
from ..reasoner.statemachine import ReasonerError, ReasonerResourceError, ReasonerTimeout
from .grounder_clauses import (
    iterate, negative_inside, put_instance_clause, put_pattern, put_plain_clause, put_tagged_clause,
    read_result, relation_indicator, relaxed_body,
)
from .rules import Estimates, Factoring, canonical, merge_alternatives, prepare_rules

GROUNDER_FILE = Path(__file__).with_name("grounder.pl")
_MODULE = "ggp_grounder"

#: Default caps: beyond these a propnet would not pay for itself anyway.
DEFAULT_MAX_ATOMS = 1_000_000
DEFAULT_MAX_INSTANCES = 2_000_000

#: Relations whose atoms the network builder needs as terms.
WANTED = (("true", 1), ("does", 2), ("legal", 2), ("goal", 2), ("terminal", 0), ("next", 1), ("init", 1), ("role", 1))

#: Relations every game's modules declare, defined or not.
_ALWAYS = {("role", 1), ("init", 1), ("legal", 2), ("next", 1), ("goal", 2), ("terminal", 0), ("base", 1), ("input", 2),
           ("true", 1), ("does", 2)}

_STATE = {("true", 1), ("does", 2)}

_counter = itertools.count(1)
_loaded = False
_load_lock = threading.Lock()


class GroundingError(ReasonerError):
    """The grounder gave up: `where` names the relation or rule, `reason` says why."""

    def __init__(self, reason: str, where: str = "", seconds: float = 0.0, profile: tuple = ()) -> None:
        self.reason = reason
        self.where = where
        self.seconds = seconds
        #: (step, CPU seconds, answers or instances) of the grounding until it gave up
        self.profile = profile
        super().__init__(f"grounding gave up ({reason})" + (f" at {where}" if where else ""))


@dataclass
class Grounding:
    """The ground program of a game's state-dependent part."""

    roles: tuple[Term, ...]
    #: "base" (the game's base/input were complete) or "relaxed" (a fixpoint)
    mode: str
    n_atoms: int
    #: flat int64: per instance head, literal count, literals (2 * atom + negated)
    instances: np.ndarray
    n_instances: int
    #: relation -> [(atom id, argument terms)] for state-dependent wanted relations
    dynamic_atoms: dict[tuple[str, int], list[tuple[int, tuple[Term, ...]]]]
    #: relation -> [argument terms] for static wanted relations (exact answers)
    static_atoms: dict[tuple[str, int], list[tuple[Term, ...]]]
    seconds: float
    #: rules after factoring, and how many auxiliary relations that made
    n_rules: int = 0
    n_aux: int = 0
    notes: list[str] = field(default_factory=list)
    #: (step, CPU seconds, answers or instances) per step, the costliest first
    profile: tuple = ()

    def atoms_of(self, relation: tuple[str, int]) -> tuple[list, list]:
        """(dynamic (id, args) pairs, static args) of a wanted relation."""
        return self.dynamic_atoms.get(relation, []), self.static_atoms.get(relation, [])


def dynamic_relations(rules, base: frozenset = frozenset()) -> frozenset:
    """Relations whose truth depends on `true` or `does`, plus those two."""
    dependent = set(base) | _STATE
    heads: dict[tuple[str, int], list[set]] = {}
    for rule in rules:
        body = {relation_key(s) for s in map(sentence_of, rule.body) if s is not None}
        heads.setdefault(relation_key(rule.head), []).append(body)
    changed = True
    while changed:
        changed = False
        for head, bodies in heads.items():
            if head not in dependent and any(body & dependent for body in bodies):
                dependent.add(head)
                changed = True
    return frozenset(dependent)


def ground(
    game: ValidatedGame,
    rules: Optional[tuple[Rule, ...]] = None,
    time_limit: float = 10.0,
    max_atoms: int = DEFAULT_MAX_ATOMS,
    max_instances: int = DEFAULT_MAX_INSTANCES,
    use_base: bool = True,
    factor: bool = True,
) -> Grounding:
    """Ground the game's rules (or `rules`) within the given bounds."""
    rules = prepare_rules(game) if rules is None else rules
    has_base = any(relation_key(r.head) == ("base", 1) for r in rules) and any(
        relation_key(r.head) == ("input", 2) for r in rules
    )
    modes = ["base", "relaxed"] if use_base and has_base else ["relaxed"]
    started = time.perf_counter()
    deadline = started + time_limit
    thread = PrologThread.instance()
    notes: list[str] = []
    for mode in modes:
        number = next(_counter)
        job = _Job(
            roles=tuple(game.roles),
            mode=mode,
            rules=rules,
            relaxed_module=f"ggp_ground_{number}_r",
            facts_module=f"ggp_ground_{number}_f",
            delta_module=f"ggp_ground_{number}_d",
            deadline=deadline,
            started=started,
            max_atoms=max_atoms,
            max_instances=max_instances,
            factor=factor,
        )
        try:
            result = thread.call(_run_spelled, job, parenthesized_names(game.rules))
        finally:
            thread.call(_destroy, job)
        if isinstance(result, str):
            notes.append(f"base/input incomplete ({result}): grounded by the relaxed fixpoint instead")
            continue
        result.notes = notes + result.notes
        result.seconds = time.perf_counter() - started
        return result
    raise AssertionError("unreachable")  # pragma: no cover


@dataclass
class _Job:
    roles: tuple
    mode: str
    rules: tuple
    relaxed_module: str
    facts_module: str
    delta_module: str
    deadline: float
    started: float
    max_atoms: int
    max_instances: int
    factor: bool
    where_rules: tuple = ()
    #: (step, seconds) of the work done in Python (loading clauses, factoring, reading)
    phases: list = field(default_factory=list)


# -- everything below runs on the Prolog thread --------------------------------------


def _ensure_loaded() -> None:
    global _loaded
    with _load_lock:
        if not _loaded:
            consult_runtime(GROUNDER_FILE)
            _loaded = True


def _own(name: str, arity: int):
    """The indicator of one of the grounder's own predicates ('$inst', '$sn0', '$snd')."""
    return pt.indicator(name, arity)


def _state_rules(mode: str) -> list[Rule]:
    x, p, m = Variable("?x"), Variable("?p"), Variable("?m")
    true, does = Compound("true", (x,)), Compound("does", (p, m))
    if mode == "base":
        return [Rule(true, (Compound("base", (x,)),)), Rule(does, (Compound("input", (p, m)),))]
    return [Rule(true, (Compound("init", (x,)),)), Rule(true, (Compound("next", (x,)),)),
            Rule(does, (Compound("legal", (p, m)),))]


def _call(job: _Job, name: str, args, read=None, where: str = ""):
    """A grounder predicate under the time left; errors become GroundingError."""
    remaining = job.deadline - time.perf_counter()
    seconds = time.perf_counter() - job.started
    if remaining <= 0:
        raise GroundingError("time limit", where or _progress(job), seconds, _profile(job))
    try:
        return call_predicate(_MODULE, name, args, remaining, read)
    except GroundingError as error:
        error.profile = error.profile or _profile(job)
        raise
    except ReasonerError as error:
        seconds = time.perf_counter() - job.started
        place = where or _progress(job)
        profile = _profile(job)
        if isinstance(error, ReasonerTimeout):
            raise GroundingError("time limit", place, seconds, profile) from None
        if isinstance(error, ReasonerResourceError):
            raise GroundingError("Prolog ran out of memory", place, seconds, profile) from None
        text = str(error)
        reason = text.split("ggp_ground(", 1)[1].rsplit(")", 1)[0] if "ggp_ground(" in text else text
        raise GroundingError(reason.replace("gdl:", ""), place, seconds, profile) from None


def _run_spelled(job: _Job, spelling: frozenset):
    """`_run`, its atoms read back as the game's rules write them."""
    with swipl.spelled(spelling):
        return _run(job)


class _Phase:
    """Adds the CPU time of a stretch of Python work to the job's phases."""

    def __init__(self, job: _Job, name: str) -> None:
        self.job, self.name = job, name

    def __enter__(self):
        self.began = time.process_time()

    def __exit__(self, *exc):
        self.job.phases.append((self.name, time.process_time() - self.began))


def _run(job: _Job):
    _ensure_loaded()
    loading = _Phase(job, "loading the rules")
    loading.__enter__()
    rules = list(job.rules) + _state_rules(job.mode)
    relations = set(_ALWAYS)
    for rule in rules:
        relations.add(relation_key(rule.head))
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is not None:
                relations.add(relation_key(sentence))
    dynamic = dynamic_relations(rules)
    components, component_of, recursive = _components(rules, relations, dynamic)
    r, f, d = job.relaxed_module, job.facts_module, job.delta_module
    seminaive = {c for c in recursive if not negative_inside(rules, components[c], dynamic)}
    tabled = [key for key in relations if component_of[key] in recursive - seminaive]
    indicators = [relation_indicator(k) for k in sorted(relations)]
    _call(job, "ground_create", [pt.atom(r), pt.fill_list(indicators + [_own("$sn0", 2), _own("$snd", 2)]),
                                  pt.fill_list(map(relation_indicator, tabled))], where="loading the rules")
    _call(job, "ground_create", [pt.atom(f), pt.fill_list(indicators + [_own("$inst", 3)]), pt.fill_list([])],
          where="loading the rules")
    _call(job, "ground_create", [pt.atom(d), pt.fill_list(indicators), pt.fill_list([])], where="loading the rules")

    def is_static(key):
        return key not in dynamic

    for rule in rules:
        head_key = relation_key(rule.head)
        component = component_of[head_key]
        body = relaxed_body(rule, dynamic)
        if component in seminaive:
            members = set(components[component])
            recursive_positions = [i for i, lit in enumerate(body)
                                   if is_positive_sentence(lit) and relation_key(lit) in members]
            if not recursive_positions:
                _add_clause(job, r, lambda ref, rule=rule, body=body, c=component:
                            put_tagged_clause(ref, "$sn0", c, rule.head, body, f, None, is_static))
            for position in recursive_positions:
                moved = [body[position]] + body[:position] + body[position + 1:]
                _add_clause(job, r, lambda ref, rule=rule, moved=moved, c=component:
                            put_tagged_clause(ref, "$snd", c, rule.head, moved, f, d, is_static))
            continue
        local = component in recursive and (lambda key, c=component: component_of.get(key) == c)
        _add_clause(job, r, lambda ref, rule=rule, body=body, local=local:
                    put_plain_clause(ref, rule.head, body, f, local, is_static))
    descriptors = []
    for c, members in enumerate(components):
        kind = "seminaive" if c in seminaive else "plain"
        members_fill = pt.fill_list(map(relation_indicator, members))
        if kind == "seminaive":
            descriptors.append(lambda ref, c=c, m=members_fill: swipl.put_compound(ref, "seminaive", [pt.integer(c), m]))
        else:
            descriptors.append(lambda ref, m=members_fill: swipl.put_compound(ref, "plain", [m]))
    loading.__exit__()
    _call(job, "ground_reset_count", [])
    _call(job, "ground_answers", [pt.atom(r), pt.atom(f), pt.atom(d), pt.fill_list(descriptors), pt.integer(job.max_atoms)])
    if job.mode == "base":
        problem = _call(job, "ground_base_problem", [pt.atom(f), pt.var], read=lambda refs: swipl.get_text(refs + 1))
        if problem is not False:
            return str(problem).replace("gdl:", "")

    # -- factoring ---------------------------------------------------------------
    network_rules = [rule for rule in job.rules if relation_key(rule.head) in dynamic]
    aux_rules: list[Rule] = []
    estimates = None
    if job.factor and network_rules:
        estimates = Estimates(_measure(job, f, network_rules))
        factoring_phase = _Phase(job, "factoring")
        factoring_phase.__enter__()
        factoring = Factoring(estimates, lambda key: key not in dynamic)
        factored = []
        for rule in network_rules:
            factored.extend(factoring.factor(rule))
        aux_rules = factoring.aux_rules
        names = itertools.count(factoring.aux_count + 1)
        with_aux = dynamic_relations(list(job.rules) + aux_rules + _state_rules(job.mode))
        merged, alt_rules = merge_alternatives(aux_rules + factored, lambda key: key not in with_aux,
                                               lambda: f"aux {next(names)}")
        aux_keys = {relation_key(rule.head) for rule in aux_rules}
        aux_rules = [rule for rule in merged if relation_key(rule.head) in aux_keys] + alt_rules
        network_rules = [rule for rule in merged if relation_key(rule.head) not in aux_keys]
        factoring_phase.__exit__()
    if aux_rules:
        aux_keys = _dependency_order(aux_rules)
        _call(job, "ground_create", [pt.atom(r), pt.fill_list(map(relation_indicator, aux_keys)), pt.fill_list([])], where="loading the rules")
        _call(job, "ground_create", [pt.atom(f), pt.fill_list(map(relation_indicator, aux_keys)), pt.fill_list([])], where="loading the rules")
        dynamic = dynamic_relations(list(job.rules) + aux_rules + _state_rules(job.mode))
        for rule in aux_rules:
            _add_clause(job, r, lambda ref, rule=rule: put_plain_clause(ref, rule.head, relaxed_body(rule, dynamic), f,
                                                                         False, lambda key: key not in dynamic))
        plain = [lambda ref, k=k: swipl.put_compound(ref, "plain", [pt.fill_list([relation_indicator(k)])]) for k in aux_keys]
        _call(job, "ground_answers", [pt.atom(r), pt.atom(f), pt.atom(d), pt.fill_list(plain), pt.integer(job.max_atoms)])
        network_rules = aux_rules + network_rules
        relations.update(aux_keys)
    network_rules = [rule for rule in network_rules if relation_key(rule.head) in dynamic]
    job.where_rules = tuple(network_rules)
    for index, rule in enumerate(network_rules, start=1):
        _add_clause(job, f, lambda ref, rule=rule, index=index: put_instance_clause(ref, rule, index, dynamic, estimates))

    dynamic_order = sorted(key for key in relations if key in dynamic)
    wanted = [
        (lambda ref, key=key: swipl.put_compound(ref, "-", [relation_indicator(key), pt.atom("state" if key in dynamic else "static")]))
        for key in WANTED
    ]
    limits = lambda ref: swipl.put_compound(ref, "limits", [pt.integer(job.max_instances), pt.integer(len(network_rules))])
    n_atoms, n_instances, text, dynamic_atoms, static_atoms = _call(
        job, "ground_finish",
        [pt.atom(f), pt.fill_list(map(relation_indicator, dynamic_order)), pt.fill_list(wanted), limits, pt.var],
        read=lambda refs: read_result(refs + 4, job.deadline, lambda where: GroundingError("time limit", where)),
    )
    with _Phase(job, "reading the instances"):
        instances = np.fromstring(text, dtype=np.int64, sep=" ") if text.strip() else np.zeros(0, dtype=np.int64)
    return Grounding(
        roles=job.roles,
        mode=job.mode,
        n_atoms=n_atoms,
        instances=instances,
        n_instances=n_instances,
        dynamic_atoms=dynamic_atoms,
        static_atoms=static_atoms,
        seconds=time.perf_counter() - job.started,
        n_rules=len(network_rules),
        n_aux=len(aux_rules),
        profile=_profile(job),
    )


def _components(rules, relations, dynamic):
    """Strongly connected components of the relation graph of the relaxed
    program (negations of state-dependent relations gone), dependencies first."""
    edges: dict[tuple, set] = {key: set() for key in relations}
    for rule in rules:
        head = relation_key(rule.head)
        for literal in relaxed_body(rule, dynamic):
            sentence = sentence_of(literal)
            if sentence is not None:
                edges[head].add(relation_key(sentence))
    components = strongly_connected_components(sorted(relations), lambda key: sorted(edges[key]))
    component_of = {key: i for i, members in enumerate(components) for key in members}
    recursive = {i for i, members in enumerate(components)
                 if len(members) > 1 or members[0] in edges[members[0]]}
    return components, component_of, recursive


def _dependency_order(rules: list[Rule]) -> list[tuple[str, int]]:
    """The rules' head relations, each after the others of them it reads."""
    heads: dict[tuple[str, int], set] = {}
    for rule in rules:
        reads = heads.setdefault(relation_key(rule.head), set())
        for literal in rule.body:
            sentence = sentence_of(literal)
            if sentence is not None:
                reads.add(relation_key(sentence))
    order: list[tuple[str, int]] = []
    placed: set = set()
    pending = list(heads)
    while pending:
        progress = False
        for key in list(pending):
            if all(dep in placed or dep not in heads or dep == key for dep in heads[key]):
                order.append(key)
                placed.add(key)
                pending.remove(key)
                progress = True
        if not progress:  # a cycle (not made by factoring): keep the given order
            order.extend(pending)
            break
    return order


def _measure(job: _Job, facts_module: str, rules: list[Rule]) -> dict[str, list[int]]:
    """Count facts and distinct values per variable for every positive literal."""
    patterns: dict[str, object] = {}
    for rule in rules:
        for literal in rule.body:
            if is_positive_sentence(literal):
                key, order = canonical(literal)
                if key not in patterns:
                    patterns[key] = (literal, order)
    keys = list(patterns)

    rows = _call(
        job, "ground_stats",
        [pt.atom(facts_module), pt.fill_list(lambda ref, p=patterns[k]: put_pattern(ref, *p) for k in keys), pt.var],
        read=lambda refs: [[swipl.get_int(x) for x in swipl.get_list(row)] for row in iterate(refs + 2)],
    )
    return dict(zip(keys, rows))


def _progress(job: _Job) -> str:
    try:
        where = call_predicate(_MODULE, "ground_progress", [pt.var], read=lambda refs: swipl.get_text(refs))
    except ReasonerError:
        return "unknown"
    text = str(where)
    if text.startswith("rule(") and text[5:-1].isdigit():
        index = int(text[5:-1])
        if 0 < index <= len(job.where_rules):
            return f"instances of rule {job.where_rules[index - 1]}"
    return text.replace("gdl:", "")


def _profile(job: _Job) -> tuple:
    """The grounding's steps so far, the costliest first: Prolog's own
    (`ground_profile`, CPU seconds) and the Python phases (wall seconds)."""
    def read(refs):
        steps = []
        for item in iterate(refs):
            seconds, count, where = swipl.get_text(item).split(" ", 2)
            steps.append((_where_text(job, where), float(seconds), int(count)))
        return steps

    try:
        steps = call_predicate(_MODULE, "ground_profile", [pt.var], read=read)
    except ReasonerError:
        steps = []
    steps = [s for s in steps if s[0] != "done"] + [(phase, seconds, 0) for phase, seconds in job.phases]
    return tuple(sorted(steps, key=lambda s: -s[1]))


def _where_text(job: _Job, text: str) -> str:
    text = text.replace("gdl:", "")
    if text.startswith("rule(") and text[5:-1].isdigit():
        index = int(text[5:-1])
        if 0 < index <= len(job.where_rules):
            return f"instances of rule {job.where_rules[index - 1]}"
    return text


def _destroy(job: _Job) -> None:
    if not _loaded:
        return
    for module in (job.relaxed_module, job.facts_module, job.delta_module):
        try:
            call_predicate(_MODULE, "ground_destroy", [pt.atom(module)])
        except ReasonerError:  # pragma: no cover - best effort
            pass


def _add_clause(job: _Job, module: str, fill) -> None:
    api = swipl.api
    frame = api.open_foreign_frame()
    try:
        clause = api.new_term_ref()
        fill(clause)
        _call(job, "ground_add_clause", [pt.atom(module), lambda ref: api.put_term(ref, clause)], where="loading the rules")
    finally:
        api.discard_foreign_frame(frame)


