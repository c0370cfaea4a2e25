/*  ggp_runtime: the fixed Prolog side of ggp-agent's reasoner.

    This file is our own code, consulted once when the Prolog thread starts.
    Game rules never pass through it as text: Python builds each rule as a term
    and asserts it into a module of its own (one per game), where every GDL
    relation is a predicate named 'gdl:<name>' so that no game symbol can mean
    anything to Prolog. The predicates here run the game inside Prolog: setting
    the state, legal moves, the next state, goals and whole random playouts in
    one call, because a call through pyswip per step costs an order of magnitude.
*/
:- module(ggp_runtime,
          [ run/2,
            configure/2,
            game_create/4,
            game_add_clause/2,
            game_seal/1,
            game_destroy/1,
            set_state/2,
            initial_state/2,
            legal_moves/4,
            next_state/4,
            percepts/5,
            next_with_percepts/6,
            consistent_successors_of_many/6,
            is_terminal/2,
            bounded_playout/8,
            goal_lists/3,
            random_playout/6,
            random_playout_moves/7,
            next_info/6,
            bench_playouts/5
          ]).
:- use_module(library(time)).
:- use_module(library(random)).
:- use_module(library(lists)).
:- use_module(library(apply)).

%!  game_info(Module, StateTables, Roles)
%   StateTables: the heads of tabled relations whose answers depend on the
%   state or the moves; their tables are dropped whenever those change.
:- dynamic game_info/3.

%!  configure(+StackLimitBytes, +TableSpaceBytes) is det.
%   Bounds for the Prolog thread, so that a huge or hostile game raises a
%   resource error instead of taking the machine's memory.
configure(StackLimit, TableSpace) :-
    set_prolog_flag(stack_limit, StackLimit),
    set_prolog_flag(table_space, TableSpace).

%!  run(+TimeLimit, :Goal) is semidet.
%   First solution of Goal, within TimeLimit seconds when TimeLimit > 0.
run(Limit, Goal) :-
    (   Limit > 0
    ->  call_with_time_limit(Limit, Goal)
    ;   call(Goal)
    ),
    !.

%!  game_create(+Module, +Roles, +Dynamic, +Tabled) is det.
%   Dynamic: Name/Arity of every relation of the game (so that an undefined
%   relation simply fails); Tabled: Name/Arity-StateDependent for the recursive
%   relations, which are tabled so that recursion over cyclic data terminates.
game_create(M, Roles, Dynamic, Tabled) :-
    set_module(M:base(system)),
    forall(member(Name/Arity, ['gdl:true'/1, 'gdl:does'/2 | Dynamic]),
           dynamic(M:Name/Arity)),
    forall(member(Name/Arity-_, Tabled), M:table(Name/Arity)),
    findall(Head,
            ( member(Name/Arity-true, Tabled),
              functor(Head, Name, Arity)
            ),
            StateTables),
    retractall(game_info(M, _, _)),
    assertz(game_info(M, StateTables, Roles)).

game_add_clause(M, Clause) :-
    assertz(M:Clause).

%!  game_seal(+Module) is det.
%   Nothing to do yet: kept so the loader has one place to finish a game.
game_seal(_).

game_destroy(M) :-
    (   game_info(M, _, _)
    ->  catch(abolish_module_tables(M), _, true),
        retractall(game_info(M, _, _)),
        forall(( current_predicate(M:Name/Arity),
                 functor(Head, Name, Arity),
                 \+ predicate_property(M:Head, imported_from(_)) ),
               catch(abolish(M:Name/Arity), _, true))
    ;   true
    ).

%   Drop the tables whose answers the state or the moves can change.
clear_state_tables(M) :-
    game_info(M, StateTables, _),
    forall(member(Head, StateTables),
           abolish_table_subgoals(M:Head)).

%!  set_state(+Module, +Fluents) is det.
set_state(M, Fluents) :-
    retractall(M:'gdl:true'(_)),
    retractall(M:'gdl:does'(_, _)),
    forall(member(F, Fluents), assertz(M:'gdl:true'(F))),
    clear_state_tables(M).

set_moves(M, Roles, Moves) :-
    retractall(M:'gdl:does'(_, _)),
    maplist(assert_does(M), Roles, Moves),
    clear_state_tables(M).

assert_does(M, Role, Move) :-
    assertz(M:'gdl:does'(Role, Move)).

%!  initial_state(+Module, -Fluents) is det.
initial_state(M, Fluents) :-
    set_state(M, []),
    findall(F, M:'gdl:init'(F), Fs),
    sort(Fs, Fluents).

%!  legal_moves(+Module, +Fluents, +Role, -Moves) is det.
legal_moves(M, Fluents, Role, Moves) :-
    set_state(M, Fluents),
    findall(Move, M:'gdl:legal'(Role, Move), Ms),
    sort(Ms, Moves).

%!  next_state(+Module, +Fluents, +Moves, -Next) is det.
%   Moves holds one move per role, in role order.
next_state(M, Fluents, Moves, Next) :-
    set_state(M, Fluents),
    current_next(M, Moves, Next).

current_next(M, Moves, Next) :-
    game_info(M, _, Roles),
    set_moves(M, Roles, Moves),
    findall(F, M:'gdl:next'(F), Fs),
    sort(Fs, Next).

%!  percepts(+Module, +Fluents, +Moves, +Role, -Percepts) is det.
%   What Role perceives when the joint move Moves (one per role, in role order)
%   is played in Fluents: every P of a true sees(Role, P), sorted. Evaluated as
%   next is, with the same state and moves, so a percept may use true and does.
percepts(M, Fluents, Moves, Role, Percepts) :-
    set_state(M, Fluents),
    game_info(M, _, Roles),
    set_moves(M, Roles, Moves),
    findall(P, M:'gdl:sees'(Role, P), Ps),
    sort(Ps, Percepts).

%!  next_with_percepts(+Module, +Fluents, +Moves, +Role, -Next, -Percepts) is det.
%   next_state/4 and percepts/5 in one call: the state and the moves are set
%   once, and a belief update makes one call per candidate instead of two.
next_with_percepts(M, Fluents, Moves, Role, Next, Percepts) :-
    next_state(M, Fluents, Moves, Next),
    findall(P, M:'gdl:sees'(Role, P), Ps),
    sort(Ps, Percepts).

%!  consistent_successors(+Module, +Fluents, +MovesList, +Role, +Check, +Expected, -Found) is det.
%   Found lists I-Next for each joint move Moves (the I-th of MovesList, from 0)
%   after which Role perceives exactly the percepts Expected (as a set) when
%   Check is true, or for every joint move when it is false; Next is the state
%   it leads to. The state is set once for all the candidates: a belief update
%   asks this for every state it holds.
consistent_successors(M, Fluents, MovesList, Role, Check, Expected, Found) :-
    set_state(M, Fluents),
    game_info(M, _, Roles),
    sort(Expected, Wanted),
    findall(I-Next,
            ( nth0(I, MovesList, Moves),
              set_moves(M, Roles, Moves),
              (   Check == true
              ->  findall(P, M:'gdl:sees'(Role, P), Ps),
                  sort(Ps, Wanted)
              ;   true
              ),
              findall(F, M:'gdl:next'(F), Fs),
              sort(Fs, Next)
            ),
            Found).

%!  consistent_successors_of_many(+Module, +Items, +Role, +Check, +Expected, -Founds) is det.
%   consistent_successors/7 for each s(Fluents, MovesList) of Items, in order:
%   one call for every state a belief update holds.
consistent_successors_of_many(M, Items, Role, Check, Expected, Founds) :-
    maplist(consistent_successors_item(M, Role, Check, Expected), Items, Founds).

consistent_successors_item(M, Role, Check, Expected, s(Fluents, MovesList), Found) :-
    consistent_successors(M, Fluents, MovesList, Role, Check, Expected, Found).

%!  is_terminal(+Module, +Fluents) is semidet.
is_terminal(M, Fluents) :-
    set_state(M, Fluents),
    M:'gdl:terminal',
    !.

%!  goal_lists(+Module, +Fluents, -ValuesPerRole) is det.
%   Every goal value each role has in the state (the caller decides what to
%   make of none or several).
goal_lists(M, Fluents, ValuesPerRole) :-
    set_state(M, Fluents),
    game_info(M, _, Roles),
    maplist(current_goals(M), Roles, ValuesPerRole).

current_goals(M, Role, Values) :-
    findall(V, M:'gdl:goal'(Role, V), Vs),
    sort(Vs, Values).

%   One number per role for a playout: the highest value, 0 when none.
current_goal_value(M, Role, Value) :-
    current_goals(M, Role, Values),
    foldl(max_goal, Values, 0, Value).

max_goal(Atom, Best0, Best) :-
    (   atom(Atom), atom_number(Atom, N), integer(N)
    ->  Best is max(Best0, N)
    ;   integer(Atom)
    ->  Best is max(Best0, Atom)
    ;   Best = Best0
    ).

%!  random_playout(+Module, +Fluents, +MaxSteps, -Goals, -Steps, -Final) is det.
%   Plays uniformly random joint moves from Fluents until a terminal state or
%   MaxSteps steps. Goals are the goal values in the last state reached; Final
%   is true when that state is terminal, false when the step cap cut it short.
random_playout(M, Fluents, MaxSteps, Goals, Steps, Final) :-
    set_state(M, Fluents),
    game_info(M, _, Roles),
    playout_loop(M, Roles, 0, MaxSteps, Steps, Final),
    maplist(current_goal_value(M), Roles, Goals).

playout_loop(M, Roles, Step, MaxSteps, Steps, Final) :-
    (   M:'gdl:terminal'
    ->  Steps = Step, Final = true
    ;   Step >= MaxSteps
    ->  Steps = Step, Final = false
    ;   maplist(random_legal(M, Step), Roles, Moves),
        current_next(M, Moves, Next),
        set_state(M, Next),
        Step1 is Step + 1,
        playout_loop(M, Roles, Step1, MaxSteps, Steps, Final)
    ).

%   A role without a legal move in a state that is not terminal (a broken
%   game) ends the playout with error(no_legal_move(Role, Step, Fluents), _):
%   the role, the joint moves played before, the state (Python words it).
%   Uniform over the distinct legal moves: a move the rules derive in
%   several ways is no likelier than the others (as the propnet draws).
random_legal(M, Step, Role, Move) :-
    findall(Mv, M:'gdl:legal'(Role, Mv), Ms0),
    sort(Ms0, Ms),
    (   Ms == []
    ->  no_legal_move(M, Step, Role)
    ;   random_member(Move, Ms)
    ).

no_legal_move(M, Step, Role) :-
    findall(F, M:'gdl:true'(F), Fs),
    sort(Fs, Fluents),
    throw(error(no_legal_move(Role, Step, Fluents), _)).

%!  random_playout_moves(+Module, +Fluents, +MaxSteps, -Goals, -Steps, -Final, -Record) is det.
%   As random_playout/6, and Record lists the joint moves played, one list per
%   step with one item per role: c(Move) when the role chose among several
%   legal moves, f(Move) when Move was its only one (the search learns nothing
%   from a move that carried no choice).
random_playout_moves(M, Fluents, MaxSteps, Goals, Steps, Final, Record) :-
    set_state(M, Fluents),
    game_info(M, _, Roles),
    recorded_loop(M, Roles, 0, MaxSteps, Steps, Final, Record),
    maplist(current_goal_value(M), Roles, Goals).

recorded_loop(M, Roles, Step, MaxSteps, Steps, Final, Record) :-
    (   M:'gdl:terminal'
    ->  Steps = Step, Final = true, Record = []
    ;   Step >= MaxSteps
    ->  Steps = Step, Final = false, Record = []
    ;   maplist(recorded_legal(M, Step), Roles, Moves, Items),
        current_next(M, Moves, Next),
        set_state(M, Next),
        Step1 is Step + 1,
        Record = [Items|Rest],
        recorded_loop(M, Roles, Step1, MaxSteps, Steps, Final, Rest)
    ).

recorded_legal(M, Step, Role, Move, Item) :-
    findall(Mv, M:'gdl:legal'(Role, Mv), Ms0),
    sort(Ms0, Ms),
    (   Ms == []
    ->  no_legal_move(M, Step, Role)
    ;   Ms = [Only]
    ->  Move = Only, Item = f(Only)
    ;   random_member(Move, Ms), Item = c(Move)
    ).

%!  next_info(+Module, +Fluents, +Moves, -Next, -Terminal, -Goals) is det.
%   The next state, whether it is terminal (true/false), and each role's goal
%   value there (the highest, 0 when none) when it is: one call where a search
%   would otherwise make three.
next_info(M, Fluents, Moves, Next, Terminal, Goals) :-
    next_state(M, Fluents, Moves, Next),
    set_state(M, Next),
    game_info(M, _, Roles),
    (   M:'gdl:terminal'
    ->  Terminal = true,
        maplist(current_goal_value(M), Roles, Goals)
    ;   Terminal = false,
        Goals = []
    ).

%!  bench_playouts(+Module, +Seconds, +MaxSteps, -Playouts, -Steps) is det.
%   Random playouts from the initial state until Seconds of CPU time pass.
bench_playouts(M, Seconds, MaxSteps, Playouts, Steps) :-
    initial_state(M, Initial),
    statistics(cputime, T0),
    Deadline is T0 + Seconds,
    bench_loop(M, Initial, Deadline, MaxSteps, 0, Playouts, 0, Steps).

bench_loop(M, Initial, Deadline, MaxSteps, P0, P, S0, S) :-
    random_playout(M, Initial, MaxSteps, _, Steps, _),
    P1 is P0 + 1,
    S1 is S0 + Steps,
    statistics(cputime, Now),
    (   Now >= Deadline
    ->  P = P1, S = S1
    ;   bench_loop(M, Initial, Deadline, MaxSteps, P1, P, S1, S)
    ).

%!  bounded_playout(+Module, +Fluents, +MaxSteps, +Budget, -Steps, -Outcome, -Goals, -Reached) is det.
%   A random playout that gives the Prolog thread back after Budget seconds of
%   wall-clock time (checked between steps; a step itself is not cut). Every
%   other caller waits while one call runs, the player's legal-move fallback
%   included, so a search plays long playouts as a series of short calls.
%   Outcome is terminal, step_limit or budget. Goals are the goal values in the
%   last state (the highest per role, 0 when none) unless Outcome is budget,
%   when they are []. Reached is the last state's fluents when Outcome is budget
%   (the caller goes on from there), else [].
bounded_playout(M, Fluents, MaxSteps, Budget, Steps, Outcome, Goals, Reached) :-
    set_state(M, Fluents),
    game_info(M, _, Roles),
    get_time(Now),
    Stop is Now + Budget,
    bounded_loop(M, Roles, 0, MaxSteps, Stop, Steps, Outcome),
    (   Outcome == budget
    ->  Goals = [],
        findall(F, M:'gdl:true'(F), Reached)
    ;   Reached = [],
        maplist(current_goal_value(M), Roles, Goals)
    ).

bounded_loop(M, Roles, Step, MaxSteps, Stop, Steps, Outcome) :-
    (   M:'gdl:terminal'
    ->  Steps = Step, Outcome = terminal
    ;   Step >= MaxSteps
    ->  Steps = Step, Outcome = step_limit
    ;   Step > 0, get_time(Now), Now >= Stop
    ->  Steps = Step, Outcome = budget
    ;   maplist(random_legal(M, Step), Roles, Moves),
        current_next(M, Moves, Next),
        set_state(M, Next),
        Step1 is Step + 1,
        bounded_loop(M, Roles, Step1, MaxSteps, Stop, Steps, Outcome)
    ).
