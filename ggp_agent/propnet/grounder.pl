/*  ggp_grounder: the ground instances of a game's rules, for the propnet.

    Our own fixed code, consulted once. Python builds two modules per game from
    the validated rules, as terms (never as text), every GDL relation a predicate
    named 'gdl:<name>' as in the reasoner:

    - R, the relaxed program, every relation tabled. Relations that do not
      depend on the state (static ones) keep their rules exactly, negation
      included, so their tables are their exact extensions. Rules of relations
      that depend on the state drop their negative literals on such relations
      (keeping `distinct` and negations of static relations), and `true` and
      `does` become ordinary relations: `true :- base`, `does :- input` when
      the game has base and input, else `true :- init ; next`, `does :- legal`.
      The least model of R is then a superset of every atom any reachable
      state can make true.
    - F, the facts module: R's answers asserted as facts, plus one clause
      '$inst'(RuleIndex, Head, Literals) per rule of a state-dependent relation,
      whose body enumerates that rule's ground instances against the facts
      (static literals are checked and dropped, the others come back in
      Literals as p(Atom) or n(Atom)).

    ground_run/7 computes R's answers, interns every atom of a state-dependent
    relation as an integer, and writes every ground instance as integers into
    one string, which Python parses in one go. It records where it is in a
    global variable, so that after a time limit or a size cap Python can say
    where the grounding gave up (ground_progress/1).
*/
:- module(ggp_grounder,
          [ ground_create/3,
            ground_add_clause/2,
            ground_run/7,
            ground_progress/1,
            ground_destroy/1
          ]).
:- use_module(library(lists)).
:- use_module(library(apply)).

%!  ground_create(+Module, +Dynamic, +Tabled) is det.
ground_create(M, Dynamic, Tabled) :-
    set_module(M:base(system)),
    forall(member(Name/Arity, Dynamic), dynamic(M:Name/Arity)),
    forall(member(Name/Arity, Tabled), M:table(Name/Arity)).

ground_add_clause(M, Clause) :-
    assertz(M:Clause).

%!  ground_progress(-Where) is det.
%   The phase the last ground_run/7 reached: answers(Name/Arity),
%   rule(Index), check(What) or done.
ground_progress(Where) :-
    (   nb_current(ggp_ground_where, Where0)
    ->  Where = Where0
    ;   Where = none
    ).

where(Where) :-
    nb_setval(ggp_ground_where, Where).

%!  ground_run(+R, +F, +Mode, +Relations, +Wanted, +Limits, -Result) is det.
%   Mode: base (use base/input, fall back to relaxed when they prove
%   incomplete) or relaxed. Relations: Name/Arity-Kind for every relation,
%   Kind static or state. Wanted: Name/Arity of the relations whose atoms
%   Python needs as terms. Limits: limits(MaxAtoms, MaxInstances, NRules).
%   Result: result(ModeUsed, NAtoms, NInstances, Text, WantedAtoms, Notes)
%   where WantedAtoms holds dyn(Name/Arity, [Id-Args, ...]) or
%   static(Name/Arity, [Args, ...]) per wanted relation.
ground_run(R, F, Mode, Relations, Wanted, Limits, Result) :-
    where(start),
    (   Mode == base
    ->  define_state(R, base),
        answers(R, F, Relations, Limits, Trie, NAtoms),
        (   base_problem(F, Problem)
        ->  Notes = [Problem],
            reset(R, F, Relations),
            define_state(R, relaxed),
            answers(R, F, Relations, Limits, Trie2, NAtoms2),
            finish(F, Trie2, NAtoms2, relaxed, Relations, Wanted, Limits, Notes, Result)
        ;   finish(F, Trie, NAtoms, base, Relations, Wanted, Limits, [], Result)
        )
    ;   define_state(R, relaxed),
        answers(R, F, Relations, Limits, Trie, NAtoms),
        finish(F, Trie, NAtoms, relaxed, Relations, Wanted, Limits, [], Result)
    ).

finish(F, Trie, NAtoms, ModeUsed, Relations, Wanted, Limits, Notes, Result) :-
    Limits = limits(_, MaxInstances, NRules),
    flag(ggp_ground_instances, _, 0),
    with_output_to(string(Text),
                   forall(between(1, NRules, Index),
                          ( where(rule(Index)),
                            forall(F:'$inst'(Index, Head, Literals),
                                   emit(Trie, Head, Literals, MaxInstances))
                          ))),
    flag(ggp_ground_instances, NInstances, NInstances),
    maplist(wanted_atoms(F, Trie, Relations), Wanted, WantedAtoms),
    where(done),
    Result = result(ModeUsed, NAtoms, NInstances, Text, WantedAtoms, Notes).

define_state(R, base) :-
    assertz(R:('gdl:true'(X) :- 'gdl:base'(X))),
    assertz(R:('gdl:does'(P, M) :- 'gdl:input'(P, M))).
define_state(R, relaxed) :-
    assertz(R:('gdl:true'(X) :- 'gdl:init'(X))),
    assertz(R:('gdl:true'(X) :- 'gdl:next'(X))),
    assertz(R:('gdl:does'(P, M) :- 'gdl:legal'(P, M))).

%   Undo the base attempt: drop the state definitions, the tables and the facts.
reset(R, F, Relations) :-
    retractall(R:'gdl:true'(_)),
    retractall(R:'gdl:does'(_, _)),
    abolish_module_tables(R),
    forall(member(Name/Arity-_, Relations),
           ( functor(H, Name, Arity), retractall(F:H) )).

%   base and input describe the state and the moves completely only when
%   init and next stay inside base and legal inside input.
base_problem(F, Problem) :-
    where(check(base)),
    (   F:'gdl:init'(X), \+ F:'gdl:true'(X)
    ->  Problem = init_outside_base(X)
    ;   F:'gdl:next'(X), \+ F:'gdl:true'(X)
    ->  Problem = next_outside_base(X)
    ;   F:'gdl:legal'(P, M), \+ F:'gdl:does'(P, M)
    ->  Problem = legal_outside_input(P, M)
    ).

%   Every relation's answers from R into F as facts; the atoms of dynamic
%   relations interned in a trie, numbered from 0 in order.
answers(R, F, Relations, limits(MaxAtoms, _, _), Trie, NAtoms) :-
    trie_new(Trie),
    foldl(relation_answers(R, F, Trie, MaxAtoms), Relations, 0, NAtoms).

relation_answers(R, F, Trie, MaxAtoms, Name/Arity-Kind, N0, N) :-
    where(answers(Name/Arity)),
    functor(Goal, Name, Arity),
    findall(Goal, R:Goal, Answers0),
    sort(Answers0, Answers),
    (   member(Answer, Answers), \+ ground(Answer)
    ->  throw(ggp_ground(nonground(Answer)))
    ;   true
    ),
    forall(member(Answer, Answers), assertz(F:Answer)),
    (   Kind == state
    ->  foldl(intern(Trie), Answers, N0, N),
        (   N > MaxAtoms
        ->  throw(ggp_ground(too_many_atoms(N, MaxAtoms)))
        ;   true
        )
    ;   N = N0
    ).

intern(Trie, Atom, N0, N) :-
    trie_insert(Trie, Atom, N0),
    N is N0 + 1.

%   One instance: head id, literal count, literals (id * 2, plus 1 when negated).
%   A negated atom that no state can make true is always satisfied: dropped.
emit(Trie, Head, Literals, MaxInstances) :-
    (   trie_lookup(Trie, Head, HeadId)
    ->  true
    ;   throw(ggp_ground(head_not_interned(Head)))
    ),
    foldl(literal_code(Trie), Literals, Codes, []),
    length(Codes, Length),
    format("~d ~d", [HeadId, Length]),
    forall(member(Code, Codes), format(" ~d", [Code])),
    put_char(' '),
    flag(ggp_ground_instances, Count, Count + 1),
    (   Count >= MaxInstances
    ->  throw(ggp_ground(too_many_instances(MaxInstances)))
    ;   true
    ).

literal_code(Trie, p(Atom), [Code | Rest], Rest) :-
    (   trie_lookup(Trie, Atom, Id)
    ->  Code is Id * 2
    ;   throw(ggp_ground(literal_not_interned(Atom)))
    ).
literal_code(Trie, n(Atom), Codes, Rest) :-
    (   trie_lookup(Trie, Atom, Id)
    ->  Code is Id * 2 + 1,
        Codes = [Code | Rest]
    ;   Codes = Rest
    ).

wanted_atoms(F, Trie, Relations, Name/Arity, Atoms) :-
    functor(Goal, Name, Arity),
    (   memberchk(Name/Arity-state, Relations)
    ->  findall(Id-Args,
                ( F:Goal, trie_lookup(Trie, Goal, Id), Goal =.. [_ | Args] ),
                Pairs),
        Atoms = dyn(Name/Arity, Pairs)
    ;   findall(Args, ( F:Goal, Goal =.. [_ | Args] ), List),
        Atoms = static(Name/Arity, List)
    ).

%!  ground_destroy(+Module) is det.
%   Free a module's tables and predicates.
ground_destroy(M) :-
    catch(abolish_module_tables(M), _, true),
    forall(( current_predicate(M:Name/Arity),
             functor(Head, Name, Arity),
             \+ predicate_property(M:Head, imported_from(_)) ),
           catch(abolish(M:Name/Arity), _, true)).
