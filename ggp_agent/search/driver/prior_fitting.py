"""MCPS's priors weighed by their measured bias, during the match (`priors="fitted"`).

The kernels weigh a prior count m as m / (1 + prior_bias·m) playouts of the
edge itself (`tree/select.prior_weights`); least squared error puts
prior_bias at b²/σ², b the prior's bias and σ² a playout's variance
(`tree/prior_fit.py`). `PriorFitting` measures both in the tree every
`every` seconds of search, keeps a decaying sum of the measurements (the
tree changes slowly, and one scan of a young tree has few samples), and
writes the fitted prior_bias into the search's packed settings, which the
next batch reads. Until the tree offers MIN_SAMPLES edges the priors keep
the weight they started with (the published one).

It must not change anything but P_PRIOR_BIAS, and it costs one scan of the
node pool per `every` seconds (about a millisecond per million nodes).
"""

from __future__ import annotations

import time
from typing import Optional

import numpy as np

from ..tree.params import P_PRIOR_BIAS
from ..tree.prior_fit import ERR_SAMPLES, ERR_SIZE, ERR_SQUARED, ERR_VARIANCE, prior_error

#: Nodes and edges measured: a node with this many visits, an edge (and its
#: prior) with this many playouts, so that sampling noise stays small
#: beside the bias it is subtracted from.
MIN_NODE_VISITS = 100
MIN_EDGE_VISITS = 20
#: Edges measured before the fit replaces the starting weight.
MIN_SAMPLES = 30
#: Each new scan's weight against the sums before it.
DECAY = 0.5
#: Seconds of search between scans.
EVERY_SECONDS = 0.25
#: The playout variance below which the fit does not divide (near-decided trees).
MIN_VARIANCE = 0.02
#: The largest prior_bias fitted: a prior worth at most a playout.
MAX_PRIOR_BIAS = 1.0


class PriorFitting:
    """Fits P_PRIOR_BIAS of one search's packed settings to the bias its tree shows."""

    def __init__(self, every: float = EVERY_SECONDS) -> None:
        self.every = every
        self._sums = np.zeros(ERR_SIZE, dtype=np.float64)
        self._scan = np.zeros(ERR_SIZE, dtype=np.float64)
        self._at = 0.0
        self.fitted: Optional[float] = None

    def update(self, arena, packed: np.ndarray, now: Optional[float] = None) -> None:
        """Scan the tree when `every` seconds have passed since the last scan,
        and write the fitted prior_bias into `packed` once there are enough samples."""
        now = time.perf_counter() if now is None else now
        if now - self._at < self.every:
            return
        self._at = now
        self._scan[:] = 0.0
        prior_error(arena, MIN_NODE_VISITS, MIN_EDGE_VISITS, self._scan)
        self._sums *= DECAY
        self._sums += self._scan
        fitted = fitted_prior_bias(self._sums)
        if fitted is not None:
            self.fitted = fitted
            packed[P_PRIOR_BIAS] = fitted

    def figures(self) -> dict:
        """What the status page and the move log show: the fitted weight and its evidence."""
        samples = float(self._sums[ERR_SAMPLES])
        return {"prior_bias_fitted": None if self.fitted is None else round(self.fitted, 4),
                "prior_fit_samples": round(samples, 1)}


def fitted_prior_bias(sums: np.ndarray) -> Optional[float]:
    """b²/σ² from summed measurements (`prior_fit.ERR_*`), within [0,
    MAX_PRIOR_BIAS]; None while fewer than MIN_SAMPLES edges were measured."""
    samples = sums[ERR_SAMPLES]
    if samples < MIN_SAMPLES:
        return None
    squared_bias = max(0.0, sums[ERR_SQUARED] / samples)
    variance = max(sums[ERR_VARIANCE] / samples, MIN_VARIANCE)
    return float(min(MAX_PRIOR_BIAS, squared_bias / variance))
