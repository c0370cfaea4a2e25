"""The safety margin a player keeps back from every clock, adapted to measured lateness.

A reply is planned for the deadline less the margin, but goes out later than
planned when the machine is busy: the event loop wakes late, the last call into
the search takes its time, the reply waits for the CPU before it is written.
Lateness is measured on every reply that waited for its planned time (the
server reports when the bytes went to the socket), and the margin is the
configured base (the allowance for the network, which we cannot measure) plus
the lateness seen lately with a cushion. It grows at once when a reply goes out
later than the margin allowed for, and shrinks slowly (a fraction of the gap
per reply), so one quiet turn after a busy spell does not bring the risk back.

This module knows nothing of matches or HTTP; the player feeds it.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

#: Play clocks one query of our own engine may run while following the match.
FOLLOW_CLOCKS = 4.0


def follow_time_limit(play_clock: float) -> float:
    """Seconds one query of the player's engine may take while it follows the
    match (a joint move applied, our legal moves there): a few play clocks, so
    that a step slower than a clock is caught up over the next PLAYs (stale
    replies meanwhile) instead of ending our view of the match; only a step
    slower than that counts as runaway. The engine's own limit applies when
    it is longer.

    >>> follow_time_limit(30.0), follow_time_limit(0.5)
    (120.0, 2.0)
    """
    return FOLLOW_CLOCKS * play_clock


@dataclass
class AdaptiveMargin:
    """Seconds to keep back from a clock: `base` plus `cushion` times the lateness estimate.

    `lateness` is an estimate of how much later than planned replies go out:
    it jumps to any larger observation and decays towards smaller ones by
    `shrink` of the gap per observation. Lateness never pushes the margin past
    `max_fraction` of the clock, so some thinking time is left; the base is
    always kept (a base as long as the clock means: answer at once).
    """

    base: float = 0.5
    cushion: float = 1.5
    shrink: float = 0.05
    max_fraction: float = 0.9
    lateness: float = 0.0
    worst_lateness: float = 0.0
    observations: int = 0

    def __post_init__(self) -> None:
        self._lock = threading.Lock()

    def margin(self, clock: float) -> float:
        """The margin for a clock of `clock` seconds."""
        with self._lock:
            wanted = self.base + self.cushion * self.lateness
        return max(self.base, min(wanted, clock * self.max_fraction))

    def observe(self, planned: float, sent: float) -> None:
        """A reply planned for time `planned` went out at `sent` (same clock, seconds)."""
        late = max(0.0, sent - planned)
        with self._lock:
            before = self.lateness
            if late > self.lateness:
                self.lateness = late
            else:
                self.lateness -= (self.lateness - late) * self.shrink
            self.worst_lateness = max(self.worst_lateness, late)
            self.observations += 1
            grew = self.lateness > before + 0.01
        if grew:
            log.warning("a reply went out %.3f s later than planned; the safety margin is now %.3f s",
                        late, self.base + self.cushion * self.lateness)

    def snapshot(self) -> dict:
        """Figures for the status page."""
        with self._lock:
            return {
                "base_margin": self.base,
                "lateness": round(self.lateness, 4),
                "worst_lateness": round(self.worst_lateness, 4),
                "margin_now": round(self.base + self.cushion * self.lateness, 4),
                "replies_measured": self.observations,
            }
