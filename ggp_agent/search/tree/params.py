"""Search settings: the rule and its constants, and their packing for the kernels.

Why a packed float64 array: the numba kernels take every setting as one array
of a fixed type, so switching rules or constants never changes a kernel's
signature and never triggers a compilation (a game is data, never code).
`SearchParams` is the readable side; `pack()` the kernels' side. The index
constants (`P_RULE`, ...) are the only contract between the two.

Defaults follow the MCPS paper (ρ = 30, W = 10,000) and, for UCT, CadiaPlayer's
C = 40 on goal values 0..100 (0.4 on rewards scaled to [0, 1]).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Mapping, Optional

import numpy as np

from .settings import with_options

RULE_UCT = 0
RULE_GRAVE = 1
RULE_MCPS = 2

#: The tree search rules (`tree_search.py`) and their kernel ids; MCPS is the agent's default.
RULES = {"mcps": RULE_MCPS, "grave": RULE_GRAVE, "uct": RULE_UCT}
#: The flat rules (`flat.py`): Monte Carlo, and two that do not think.
FLAT_RULES = ("mc", "random", "legal")
#: Every rule name a player, the CLI and `registry.make_search` accept.
SEARCH_RULES = tuple(RULES) + FLAT_RULES
#: How several threads search (`registry.make_search`): one tree each, merged
#: at the root, or one shared tree (`parallel/shared_tree.py`).
PARALLEL = ("root", "tree")

# Indexes into the packed array.
P_RULE = 0
P_C = 1
P_RHO = 2
P_BIAS = 3
P_AMAF_ALLOC = 4
P_MAX_ROLLOUT = 5
P_WINDOW = 6
P_SOLVER = 7
P_MAX_DEPTH = 8
P_CODES = 9
P_AMAF_WEIGHT = 10
P_PERM_WEIGHT = 11
P_EXPLORE = 12
P_PRIOR_BIAS = 13
P_SIM = 14
P_RM_GAMMA = 15
P_AMAF_OWN = 16
P_PLAYOUT = 17
P_MAST_EPSILON = 18
P_ROOT_EXPLORE = 19
P_AMAF_HORIZON = 20
P_ROOT_PRIOR_BIAS = 21
P_PRIOR_EXPLORE = 22
P_LEAF_PLAYOUTS = 23
P_PICK_REFRESH = 24
P_PROBE = 25
P_MINIMAX = 26
P_CUTOFF = 27
P_REPLY_FLOOR = 28
N_PARAMS = 29

#: What the AMAF and permutation statistics are keyed by (see `SearchParams.codes`).
#: "auto" is decided when the search starts (`codes_choice.py`); packed before
#: that, it reads as moves.
CODES = {"moves": 0, "effects": 1, "destinations": 2, "auto": 0}
#: The codings whose codes beyond the move codes are learnt from a move's
#: effect on the state (they need a propnet and the effect tables).
EFFECT_CODINGS = ("effects", "destinations")

#: What the permutation window keeps when the match moves the root (see
#: `SearchParams.root_window`); the driver applies it, the kernels never read it.
ROOT_WINDOWS = ("restrict", "clear", "keep")

#: When the tree is collected after a root change (see `SearchParams.collect`);
#: the driver applies it, the kernels never read it.
COLLECTS = ("off_clock", "at_change")

#: How MCPS weighs its priors (see `SearchParams.priors`): "auto" is decided
#: when the search starts (`priors_choice.py`); packed before that, it reads as "whole".
PRIORS = ("auto", "whole", "capped", "fitted")
#: What "capped" sets where the options leave `prior_bias` and `root_explore`
#: at 0: a prior worth at most 100 playouts of the edge itself, and UCT's
#: constant at the root (measured: docs/experiments.md).
CAPPED_PRIOR_BIAS = 0.01
CAPPED_ROOT_EXPLORE = 0.4

#: MCPS's playouts per leaf on the lanes where `leaf_playouts` is unset (the
#: baselines, UCT and GRAVE, keep one, as published). Measured against one,
#: docs/experiments.md ("What each default setting is worth").
MCPS_LEAF_PLAYOUTS = 2

#: MCPS's standing picks where `pick_refresh` is unset (the baselines scan at
#: every descent, as published). Measured against none, docs/experiments.md
#: ("What each default setting is worth").
MCPS_PICK_REFRESH = 0.1

#: MCPS's reply floor where `reply_floor` is unset: every move of another
#: role at a node within one ply of the root gets at least this share of the
#: node's visits (`reply_floor.py`), twice the thousandth of the root's visits
#: that issue 50 asks the opponent's reply to keep. Measured: docs/experiments.md.
MCPS_REPLY_FLOOR = 0.002

#: The settings whose unset value (None) depends on the rule: (MCPS's value,
#: the baselines' value). MCPS's tree work per iteration is the heaviest of the
#: three rules, so it takes the measured savings; UCT and GRAVE stay the
#: published baselines (one playout per leaf, a scan at every descent).
RULE_DEFAULTS: dict[str, tuple[float, float]] = {
    "leaf_playouts": (MCPS_LEAF_PLAYOUTS, 1),
    "pick_refresh": (MCPS_PICK_REFRESH, 0.0),
    "probe": (1.0, 0.0),
    "reply_floor": (MCPS_REPLY_FLOOR, 0.0),
}

PLAYOUT_RANDOM = 0
PLAYOUT_MAST = 1
PLAYOUT_GREEDY = 2
#: The playout policy on the lanes (see `SearchParams.playout`, `mast.py`).
#: Here, not in `mast.py`: this module must not import numba (the CLI reads
#: the settings before it points numba at a readable cache).
PLAYOUTS = {"random": PLAYOUT_RANDOM, "mast": PLAYOUT_MAST, "greedy": PLAYOUT_GREEDY}

#: Whether a search uses a heuristic found at START (see `SearchParams.heuristic`).
HEURISTICS = ("auto", "on", "off")

SIM_DUCB = 0
SIM_RM = 1
#: The selection at simultaneous nodes (see `SearchParams.sim`).
SIMULTANEOUS_RULES = {"ducb": SIM_DUCB, "rm": SIM_RM}


@dataclass(frozen=True)
class SearchParams:
    """One search's rule and constants (all configurable, defaults as in the paper).

    - `rule`: "uct", "grave" or "mcps".
    - `c`: UCB1 exploration constant on rewards in [0, 1] (UCT only).
    - `rho`: the reference threshold ρ. GRAVE and MCPS take AMAF statistics from
      the nearest node on the path with at least ρ visits; MCPS freezes a node's
      permutation statistics when it reaches ρ visits.
    - `bias`: GRAVE's bias in β = ñ / (n + ñ + bias·n·ñ) (GRAVE only).
    - `amaf_alloc`: visits at which a node gets its AMAF table (memory: only
      nodes that get this far pay for one). The table then holds the node's
      playouts from that visit on, so at ρ visits it has ρ - amaf_alloc of them.
    - `max_rollout`: cap on the joint moves of one random playout (long games).
    - `window`: W, the number of recent playouts the permutation bitsets keep.
    - `solver`: mark proven results and use them (never play a proven loss,
      always take a proven win).
    - `max_depth`: cap on the tree depth of one descent (cycles, long games).
    - `codes`: what AMAF and permutation statistics are keyed by. "moves": the
      move codes (role, move). "effects": where one role
      chooses, the move's effect on the state (the fluents it changes, among
      those that depend on moves at all), so that "the disc that lands on c3"
      and "the capture on d4" are codes of their own: the paper chose codes so
      that permutations of a playout stay valid (its AtariGo codes carry a
      capture flag, its Wargame codes a destination); this is the GGP way to do
      the same without knowing the game. Needs a propnet (else moves); an
      edge learns its effect code when its child is first computed. "auto":
      decided when the search starts, from the rules: effect codes where a
      move code has several effects on average (`codes_choice.py`: connect
      four's "drop in column c"), destination codes where those moves also
      share their destinations (the Wargame), move codes elsewhere. "destinations":
      a move keyed by its destination (the move's arguments found in what it
      makes true) and how many fluents it changes, so that a plain move, a
      capture and an attack on one cell are three codes however the piece
      got there (`destinations.py`; effect codes for moves without one).
    - `priors`: how MCPS weighs its priors. "whole": as published (and as
      `prior_bias`, `root_explore` say). "capped": a prior is worth at most
      1 / CAPPED_PRIOR_BIAS playouts of the edge itself and the root explores
      (CAPPED_ROOT_EXPLORE), unless the options set `prior_bias` or
      `root_explore` themselves, so that a move whose pooled prior is poor
      but whose value here is good is tried and can take over. "auto" (the
      default): decided when the search starts, from the rules: capped where
      a played move code leaves the legal moves and comes back (a piece moves
      away and another arrives), whole where none does (placements, cells
      once marked) (`priors_choice.py`). "fitted": whole at first, then
      weighed during the match by the bias the tree measures in them
      (`prior_fit.py`, `driver/prior_fitting.py`): a prior worth
      m / (1 + (b²/σ²)·m) playouts of the edge, so priors that agree with
      the tree keep their weight and priors that mislead lose it.
    - `amaf`, `perm`: weights on the AMAF count ñ and the permutation count n̂ in
      the MCPS value (1: the paper; 0: without that source).
    - `amaf_own`: whether an edge's AMAF prior ñ, Q̃ counts the playouts of
      the edge itself (True: the paper). Those playouts always contain the
      edge's code, so they are part of the reference node's ñ, and the edge's
      own Q never weighs more than half of the value however often it is
      played; False takes them out (ñ − n, w̃ − w): the prior is then only the
      other playouts that played the code.
    - `explore`: an exploration term explore·sqrt(ln N / (n + 1)) added to the
      GRAVE and MCPS values (0: none, as published).
    - `prior_bias`: shrinks MCPS's prior counts to ñ / (1 + prior_bias·ñ) and
      n̂ / (1 + prior_bias·n̂), so that a prior is worth at most 1 / prior_bias
      playouts of the edge itself. With `perm=0` this is GRAVE's weight
      β = ñ / (n + ñ + bias·n·ñ) with bias = prior_bias (the minimum-squared-error
      weight of a biased estimator); 0 is the paper's MCPS (the priors' weight
      never vanishes, however often the edge itself is played). Unset (None):
      as `priors` says.
    - `root_window`: what the permutation window keeps when the match moves
      the root: "restrict" (the playouts that contain the moves played),
      "clear" (nothing: statistics only from playouts of the current root),
      "keep" (everything).
    - `sim`: the selection at simultaneous nodes (two or more roles other than
      the chance role with a choice): "ducb", each role's own bandit under the
      rule (decoupled, as CadiaPlayer does), or "rm", regret matching
      (`regret.py`), whose average strategy is sampled for the move played.
    - `rm_gamma`: regret matching's share of uniform exploration.
    - `playout`: the playout policy on the lanes. "random": a uniformly random
      legal move per role and step. "mast": epsilon-greedy on each move's
      average reward over the search's playouts so far (`mast.py`).
      "greedy": random, but a role with a decisive move legal plays it (a
      move code that, in this search's playouts, has always ended the game at
      once with its role's best goal), and a role whose move let the next
      role win at once takes it back and plays another
      (`runners/lane_greedy.py`).
    - `root_explore`: an exploration term root_explore·sqrt(ln N / (n + 1))
      added to the GRAVE and MCPS values at the root only (0: none; unset:
      as `priors` says). The
      move played is chosen among the root's edges, where breadth matters;
      below, the rules keep their focus.
    - `root_prior_bias`: `prior_bias` at the root only (0: the root takes
      `prior_bias` as every node does).
    - `prior_explore`: an exploration term prior_explore·sqrt(ln N / (n + ñ' + n̂' + 1))
      added to the MCPS value at every node, where ñ' and n̂' are the prior
      counts as the value weighs them (after `prior_bias`): the priors count
      as visits, as in UCT with prior knowledge (Gelly and Silver 2007). With
      uncapped priors (`prior_bias=0`) ñ' grows with the node's visits and
      the term fades: the published rule. With capped priors a move whose
      prior is poor gets tried again as ln N grows, while moves the priors
      already weigh heavily are not spread over (0: none).
    - `amaf_horizon`: a node's AMAF table takes the codes played within this
      many joint moves after it (0: all of them to the end of the playout, as
      published): a move's prior then speaks of what it does soon, not of the
      move at any time in the game (a capture now, not a capture some day).
    - `mast_epsilon`: under "mast", the share of moves still drawn at random
      (the kernel works in sixteenths).
    - `leaf_playouts`: the playouts a leaf gets on the lanes at most, each
      backed up as an iteration of its own (1: one, as published). The
      descent, the child's attach and the freeze are then paid once for
      them; the lanes run them side by side, free lanes serving a leaf's
      copies before they descend for a new one (`lane_copies.py`). Unset
      (None): MCPS_LEAF_PLAYOUTS for MCPS, whose tree work per iteration is
      the heaviest of the three rules (deeper descents reading the AMAF and
      permutation tables at every edge), and 1 for UCT and GRAVE, which stay
      the published baselines. One leaf at a time (`batch=1`, Prolog) plays
      one playout per leaf whatever this says, and so does a young tree
      (`lane_copies.leaf_copies`: none before the root's 4,096th visit).
    - `pick_refresh`: at a node where one role chooses, a scan's choice
      stands for the next passes, this share of the node's visits and at
      most `select.PICK_STAND_MAX` (0: every descent scans, as published;
      `select.py`). One more result barely moves a well-visited node's
      values, so the scan would mostly choose the same edge again, and the
      scans are most of a descent's cost. Unset (None): MCPS_PICK_REFRESH
      for MCPS, 0 for UCT and GRAVE, which stay the published baselines.
    - `probe`: when a node where one role chooses is expanded (with the
      solver on, on a propnet), that role's moves whose codes have ended a
      game in some playout are played one step ahead, and the children that
      end the game are attached and proven at once (`runners/probes.py`): a
      win in one is seen without waiting for the priors to try it. Unset
      (None): on for MCPS, off for UCT and GRAVE (the published baselines).
    - `heuristic`: whether the search values positions by a heuristic found
      at START from the rules and random playouts (`choices/heuristic_choice.py`:
      pieces that can be lost and whose count goes with the outcome, goal
      values of states before the end that go with it). "on": whatever was
      found is used as `minimax` and `cutoff` say; "off": none; "auto":
      decided at START (on where a heuristic was found).
    - `minimax`: with a heuristic, the weight of its implicit minimax value
      in selection (Lanctot, Winands, Pepels, Sturtevant 2014): an edge's
      value is (1 - minimax)·(its rule's value) + minimax·(the heuristic's
      minimax over the children the tree holds below it, `tree/heuristic.py`),
      so that a capture is seen as one when its child is first computed and
      an exchange is valued at its end, as far as the tree reaches.
    - `cutoff`: with a heuristic, playouts stop after this many joint moves
      and score an outcome drawn from the heuristic's value of the state they
      reached (0: playouts run to the end, or `max_rollout`).
    - `trials`: whether START plays quick games between the settings decided
      so far and each candidate that applies (`driver/trials.py`), when the
      player gives it time for them (a share of the start clock).
    - `reply_floor`: at a node within one ply of the root where a role other
      than ours chooses (the opponent's reply), every move of that role gets
      at least this share of the node's visits before the rule chooses
      (`reply_floor.py`): the search measures the replies its priors rank
      low, and whichever reply the opponent plays, its subtree is kept.
      Unset (None): MCPS_REPLY_FLOOR for MCPS (no exploration term, so a
      reply its priors rank low is tried once and never again), 0 for UCT
      and GRAVE (the published baselines). 0: none.
    - `collect`: when a tree more than half full is collected after a root
      change: "off_clock" (the default), only where another role chooses
      next or after our answer at a simultaneous root, so that the
      collection runs on the opponents' clock, never on ours; "at_change",
      at any root change (the behaviour before issue 50).
    """

    rule: str = "mcps"
    c: float = 0.4
    rho: int = 30
    bias: float = 1e-5
    amaf_alloc: int = 10
    max_rollout: int = 1000
    window: int = 10_000
    solver: bool = True
    max_depth: int = 400
    codes: str = "auto"
    priors: str = "auto"
    amaf: float = 1.0
    perm: float = 1.0
    amaf_own: bool = True
    explore: float = 0.0
    prior_bias: Optional[float] = None
    root_window: str = "restrict"
    sim: str = "ducb"
    rm_gamma: float = 0.1
    playout: str = "random"
    mast_epsilon: float = 0.4
    root_explore: Optional[float] = None
    root_prior_bias: float = 0.0
    amaf_horizon: int = 0
    prior_explore: float = 0.0
    leaf_playouts: Optional[int] = None
    pick_refresh: Optional[float] = None
    probe: Optional[bool] = None
    heuristic: str = "auto"
    minimax: float = 0.6
    cutoff: int = 0
    trials: bool = True
    reply_floor: Optional[float] = None
    collect: str = "off_clock"

    def __post_init__(self) -> None:
        if self.rule not in RULES:
            raise ValueError(f"unknown search rule {self.rule!r}; known: {', '.join(RULES)}")
        if self.rho < 1 or self.amaf_alloc < 0 or self.amaf_horizon < 0 or self.window < 64 or self.max_rollout < 1:
            raise ValueError(f"search settings out of range: {self}")
        if self.codes not in CODES:
            raise ValueError(f"unknown codes {self.codes!r}; known: {', '.join(CODES)}")
        if self.priors not in PRIORS:
            raise ValueError(f"unknown priors {self.priors!r}; known: {', '.join(PRIORS)}")
        if self.root_window not in ROOT_WINDOWS:
            raise ValueError(f"unknown root_window {self.root_window!r}; known: {', '.join(ROOT_WINDOWS)}")
        if min(self.amaf, self.perm, self.explore, self.prior_bias or 0.0, self.root_explore or 0.0,
               self.root_prior_bias, self.prior_explore) < 0:
            raise ValueError(f"search weights must not be negative: {self}")
        if self.sim not in SIMULTANEOUS_RULES:
            raise ValueError(f"unknown sim {self.sim!r}; known: {', '.join(SIMULTANEOUS_RULES)}")
        if not 0.0 < self.rm_gamma <= 1.0:
            raise ValueError(f"rm_gamma {self.rm_gamma} out of range (0, 1]")
        if self.playout not in PLAYOUTS:
            raise ValueError(f"unknown playout {self.playout!r}; known: {', '.join(PLAYOUTS)}")
        if not 0.0 <= self.mast_epsilon <= 1.0:
            raise ValueError(f"mast_epsilon {self.mast_epsilon} out of range [0, 1]")
        if self.pick_refresh is not None and not 0.0 <= self.pick_refresh <= 1.0:
            raise ValueError(f"pick_refresh {self.pick_refresh} out of range [0, 1]")
        if self.leaf_playouts is not None and not 1 <= self.leaf_playouts <= 64:
            raise ValueError(f"leaf_playouts {self.leaf_playouts} out of range 1..64")
        if self.heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {self.heuristic!r}; known: {', '.join(HEURISTICS)}")
        if not 0.0 <= self.minimax <= 1.0 or self.cutoff < 0:
            raise ValueError(f"minimax {self.minimax} out of range [0, 1] or cutoff {self.cutoff} negative")
        if self.reply_floor is not None and not 0.0 <= self.reply_floor <= 0.1:
            raise ValueError(f"reply_floor {self.reply_floor} out of range [0, 0.1]")
        if self.collect not in COLLECTS:
            raise ValueError(f"unknown collect {self.collect!r}; known: {', '.join(COLLECTS)}")
        if not 1 <= self.max_depth <= 100_000:
            raise ValueError(f"max_depth {self.max_depth} out of range 1..100000")

    def pack(self) -> np.ndarray:
        """The settings as the kernels read them (float64, indexes P_*)."""
        packed = np.zeros(N_PARAMS, dtype=np.float64)
        packed[P_RULE] = RULES[self.rule]
        packed[P_C] = self.c
        packed[P_RHO] = self.rho
        packed[P_BIAS] = self.bias
        packed[P_AMAF_ALLOC] = min(self.amaf_alloc, self.rho)
        packed[P_MAX_ROLLOUT] = self.max_rollout
        packed[P_WINDOW] = self.window
        packed[P_SOLVER] = 1.0 if self.solver else 0.0
        packed[P_MAX_DEPTH] = self.max_depth
        packed[P_CODES] = CODES[self.codes]
        packed[P_AMAF_WEIGHT] = self.amaf
        packed[P_PERM_WEIGHT] = self.perm
        packed[P_AMAF_OWN] = 1.0 if self.amaf_own else 0.0
        packed[P_EXPLORE] = self.explore
        prior_bias, root_explore = self.prior_weighing()
        packed[P_PRIOR_BIAS] = prior_bias
        packed[P_SIM] = SIMULTANEOUS_RULES[self.sim]
        packed[P_RM_GAMMA] = self.rm_gamma
        packed[P_PLAYOUT] = PLAYOUTS[self.playout]
        packed[P_MAST_EPSILON] = self.mast_epsilon
        packed[P_ROOT_EXPLORE] = root_explore
        packed[P_AMAF_HORIZON] = self.amaf_horizon
        packed[P_ROOT_PRIOR_BIAS] = self.root_prior_bias
        packed[P_PRIOR_EXPLORE] = self.prior_explore
        packed[P_LEAF_PLAYOUTS] = self.by_rule("leaf_playouts")
        packed[P_PICK_REFRESH] = self.by_rule("pick_refresh")
        packed[P_PROBE] = float(self.by_rule("probe"))
        heuristic = self.heuristic == "on"
        packed[P_MINIMAX] = self.minimax if heuristic else 0.0
        packed[P_CUTOFF] = self.cutoff if heuristic else 0
        packed[P_REPLY_FLOOR] = self.by_rule("reply_floor")
        return packed

    def by_rule(self, name: str) -> float:
        """A `RULE_DEFAULTS` setting as the search uses it: what the options
        set, else the rule's own default."""
        value = getattr(self, name)
        if value is not None:
            return value
        mcps, baseline = RULE_DEFAULTS[name]
        return mcps if self.rule == "mcps" else baseline

    def prior_weighing(self) -> tuple[float, float]:
        """(prior_bias, root_explore) as the search uses them: what the options
        set, else what `priors` stands for ("capped": its constants; "whole"
        and the undecided "auto": none). An explicit 0 is a setting too."""
        capped = self.priors == "capped"
        prior_bias = self.prior_bias if self.prior_bias is not None else (CAPPED_PRIOR_BIAS if capped else 0.0)
        root_explore = (self.root_explore if self.root_explore is not None
                        else (CAPPED_ROOT_EXPLORE if capped else 0.0))
        return prior_bias, root_explore

    def with_options(self, options: Mapping[str, object]) -> "SearchParams":
        """A copy with `options` (names of fields, values as text or numbers) applied."""
        return with_options(self, options, "search")

    def to_json(self) -> dict:
        return asdict(self)


#: The constants of the tree rules a player may set by name (every field but the rule).
TREE_CONSTANTS = tuple(f.name for f in fields(SearchParams) if f.name != "rule")
def tree_params(rule: str, options: Optional[Mapping[str, object]] = None) -> SearchParams:
    """The rule's `SearchParams` with `options` (field names, values as text or numbers) applied."""
    params = replace(SearchParams(), rule=rule)
    return params.with_options(options) if options else params
