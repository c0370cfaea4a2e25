/*  ggp_grounder: the ground instances of a game's rules, for the propnet.

    Our own fixed code, consulted once. Python builds two modules per game from
    the rules, as terms (never as text), every GDL relation a predicate named
    'gdl:<name>' as in the reasoner:

    - F, the facts module: every relation's answers, asserted as plain facts
      once computed (SWI indexes them on any argument), plus one clause
      '$inst'(RuleIndex, Head, Literals) per rule of a state-dependent
      relation, whose body enumerates that rule's ground instances against
      the facts (static literals are checked and dropped; the state-dependent
      ones come back in Literals as p(Atom) or n(Atom)).
    - R, the rules that compute the answers, relation by relation in
      dependency order (Python sends the strongly connected components
      bottom up): a goal on a relation computed earlier reads F's facts; only
      the relations of a recursive component call each other, tabled.
      Relations that do not depend on the state keep their rules exactly;
      those that do drop their negations of state-dependent relations, and
      `true`/`does` are defined from `base`/`input` or from `init`/`next` and
      `legal` (a relaxed program whose least model holds every atom a
      reachable state can make true).

    Each predicate records where it is in a global variable, so that after a
    time limit or a size cap Python can say where the grounding gave up
    (ground_progress/1).
*/
:- module(ggp_grounder,
          [ ground_create/3,
            ground_add_clause/2,
            ground_answers/5,
            ground_reset_count/0,
            ground_base_problem/2,
            ground_stats/3,
            ground_finish/5,
            ground_progress/1,
            ground_profile/1,
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
ground_progress(Where) :-
    (   nb_current(ggp_ground_where, Where0)
    ->  Where = Where0
    ;   Where = none
    ).

where(Where) :-
    close_step,
    statistics(cputime, Now),
    nb_setval(ggp_ground_where, Where),
    nb_setval(ggp_ground_since, Now).

%   The profile: spent(Where, CpuSeconds, Count) per step, Count being the
%   answers or instances the step made (counted/1).
:- dynamic spent/3.

close_step :-
    (   nb_current(ggp_ground_where, Where), Where \== none,
        nb_current(ggp_ground_since, Since)
    ->  statistics(cputime, Now),
        Seconds is Now - Since,
        add_spent(Where, Seconds, 0),
        nb_setval(ggp_ground_since, Now)
    ;   true
    ).

add_spent(Where, Seconds, Count) :-
    (   retract(spent(Where, Seconds0, Count0))
    ->  true
    ;   Seconds0 = 0, Count0 = 0
    ),
    Seconds1 is Seconds0 + Seconds,
    Count1 is Count0 + Count,
    assertz(spent(Where, Seconds1, Count1)).

counted(Count) :-
    (   nb_current(ggp_ground_where, Where), Where \== none
    ->  add_spent(Where, 0, Count)
    ;   true
    ).

%!  ground_profile(-Steps) is det.
%   Steps: one text per step of the grounding so far, 'CpuSeconds Count
%   Where' (the step under way included: after a time limit it is where
%   the time went).
ground_profile(Steps) :-
    close_step,
    findall(Text,
            ( spent(Where, Seconds, Count),
              format(string(Text), '~6f ~d ~q', [Seconds, Count, Where]) ),
            Steps).

%!  ground_answers(+R, +F, +D, +Components, +MaxAnswers) is det.
%   Components, bottom up: plain(Relations) (computed by calling R, whose
%   rules read F's facts; tabled there when recursive) or
%   seminaive(Id, Relations) (a recursive component computed bottom up
%   from R's '$sn0'(Id, Head) rules (no recursive literal) and
%   '$snd'(Id, Head) rules (one recursive literal read from the previous
%   round's new facts, kept in module D)). Every relation's answers are in
%   F before the next component starts.
ground_answers(R, F, D, Components, MaxAnswers) :-
    forall(member(Component, Components),
           component_answers(R, F, D, MaxAnswers, Component)).

component_answers(R, F, _, MaxAnswers, plain(Relations)) :-
    forall(member(Name/Arity, Relations),
           relation_answers(R, F, MaxAnswers, Name/Arity)).
component_answers(R, F, D, MaxAnswers, seminaive(Id, Relations)) :-
    Relations = [First | _],
    where(answers(First)),
    findall(Head, R:'$sn0'(Id, Head), Heads0),
    sort(Heads0, Heads),
    rounds(R, F, D, Id, Relations, MaxAnswers, Heads).

rounds(R, F, D, Id, Relations, MaxAnswers, Candidates) :-
    include(new_fact(F), Candidates, New),
    (   New == []
    ->  true
    ;   (   member(Answer, New), \+ ground(Answer)
        ->  throw(ggp_ground(nonground(Answer)))
        ;   true
        ),
        length(New, Count),
        counted(Count),
        flag(ggp_ground_answers, Total, Total + Count),
        (   Total + Count > MaxAnswers
        ->  throw(ggp_ground(too_many_atoms(Relations, MaxAnswers)))
        ;   true
        ),
        forall(member(Name/Arity, Relations),
               ( functor(Old, Name, Arity), retractall(D:Old) )),
        forall(member(Answer, New), ( assertz(F:Answer), assertz(D:Answer) )),
        findall(Head, R:'$snd'(Id, Head), Heads0),
        sort(Heads0, Heads),
        rounds(R, F, D, Id, Relations, MaxAnswers, Heads)
    ).

new_fact(F, Atom) :-
    \+ F:Atom.

relation_answers(R, F, MaxAnswers, Name/Arity) :-
    where(answers(Name/Arity)),
    functor(Goal, Name, Arity),
    findall(Goal, R:Goal, Answers0),
    sort(Answers0, Answers),
    (   member(Answer, Answers), \+ ground(Answer)
    ->  throw(ggp_ground(nonground(Answer)))
    ;   true
    ),
    length(Answers, Count),
    counted(Count),
    flag(ggp_ground_answers, Total, Total + Count),
    (   Total + Count > MaxAnswers
    ->  throw(ggp_ground(too_many_atoms(Name/Arity, MaxAnswers)))
    ;   true
    ),
    forall(member(Answer, Answers), assertz(F:Answer)).

ground_reset_count :-
    flag(ggp_ground_answers, _, 0),
    retractall(spent(_, _, _)),
    nb_setval(ggp_ground_where, none).

%!  ground_base_problem(+F, -Problem) is semidet.
%   base and input describe the state and the moves completely only when
%   init and next stay inside base, and legal inside input.
ground_base_problem(F, Problem) :-
    where(check(base)),
    (   F:'gdl:init'(X), \+ F:'gdl:true'(X)
    ->  Problem = init_outside_base(X)
    ;   F:'gdl:next'(X), \+ F:'gdl:true'(X)
    ->  Problem = next_outside_base(X)
    ;   F:'gdl:legal'(P, M), \+ F:'gdl:does'(P, M)
    ->  Problem = legal_outside_input(P, M)
    ).

%!  ground_stats(+F, +Patterns, -Stats) is det.
%   For each pattern(Goal, Vars): [Count, Distinct1, ...]: how many facts
%   match Goal, and how many distinct values each variable takes.
ground_stats(F, Patterns, Stats) :-
    where(statistics),
    maplist(pattern_stats(F), Patterns, Stats).

pattern_stats(F, pattern(Goal, Vars), [Count | Distinct]) :-
    findall(Vars, F:Goal, Rows),
    length(Rows, Count),
    (   Vars == []
    ->  Distinct = []
    ;   length(Vars, N),
        numlist(1, N, Positions),
        maplist(column_distinct(Rows), Positions, Distinct)
    ).

column_distinct(Rows, Position, Count) :-
    findall(V, ( member(Row, Rows), nth1(Position, Row, V) ), Vs),
    sort(Vs, Set),
    length(Set, Count).

%!  ground_finish(+F, +Dynamic, +Wanted, +Limits, -Result) is det.
%   Dynamic: Name/Arity of the state-dependent relations, whose facts are
%   numbered from 0 in that order. Wanted: Name/Arity-Kind (Kind: state or
%   static) of the relations whose atoms Python needs as terms. Limits:
%   limits(MaxInstances, NRules). Result: result(NAtoms, NInstances, Text,
%   WantedAtoms) where Text holds every instance as integers (head id,
%   literal count, literals: 2 * id, plus 1 when negated) and WantedAtoms
%   holds dyn(Name/Arity, [Id-Args, ...]) or static(Name/Arity, [Args, ...]).
ground_finish(F, Dynamic, Wanted, limits(MaxInstances, NRules), Result) :-
    where(numbering),
    trie_new(Trie),
    foldl(intern_relation(F, Trie), Dynamic, 0, NAtoms),
    flag(ggp_ground_instances, _, 0),
    findall(Codes,
            ( between(1, NRules, Index),
              where(rule(Index)),
              flag(ggp_ground_instances, Before, Before),
              findall(Code,
                      ( F:'$inst'(Index, Head, Literals),
                        instance_codes(Trie, Head, Literals, MaxInstances, InstanceCodes),
                        member(Code, InstanceCodes)
                      ),
                      Codes),
              flag(ggp_ground_instances, After, After),
              counted(After - Before)
            ),
            PerRule),
    where(text),
    append(PerRule, Flat),
    atomics_to_string(Flat, ' ', Text),
    flag(ggp_ground_instances, NInstances, NInstances),
    maplist(wanted_atoms(F, Trie), Wanted, WantedAtoms),
    where(done),
    Result = result(NAtoms, NInstances, Text, WantedAtoms).

intern_relation(F, Trie, Name/Arity, N0, N) :-
    functor(Goal, Name, Arity),
    findall(Goal, F:Goal, Atoms),
    foldl(intern(Trie), Atoms, N0, N).

intern(Trie, Atom, N0, N) :-
    (   trie_insert(Trie, Atom, N0)
    ->  N is N0 + 1
    ;   N = N0
    ).

%   One instance: head id, literal count, literals (id * 2, plus 1 when negated).
%   A negated atom that no state can make true is always satisfied: dropped.
instance_codes(Trie, Head, Literals, MaxInstances, [HeadId, Length | Codes]) :-
    (   trie_lookup(Trie, Head, HeadId)
    ->  true
    ;   throw(ggp_ground(head_not_interned(Head)))
    ),
    foldl(literal_code(Trie), Literals, Codes, []),
    length(Codes, Length),
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

wanted_atoms(F, Trie, Name/Arity-Kind, Atoms) :-
    functor(Goal, Name, Arity),
    (   Kind == state
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
