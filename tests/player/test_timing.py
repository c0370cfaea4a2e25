"""The adaptive safety margin: grows at once with lateness, shrinks slowly, keeps the base."""

from ggp_agent.player.timing import AdaptiveMargin


def test_the_margin_grows_at_once_and_shrinks_slowly():
    margins = AdaptiveMargin(base=0.5, cushion=1.5, shrink=0.05)
    assert margins.margin(10) == 0.5
    margins.observe(planned=100.0, sent=100.2)  # a reply went out 0.2 s late
    assert abs(margins.margin(10) - 0.8) < 1e-9
    for _ in range(10):  # ten punctual replies take back only part of it
        margins.observe(planned=100.0, sent=99.99)
    assert 0.6 < margins.margin(10) < 0.8
    for _ in range(200):
        margins.observe(planned=100.0, sent=100.0)
    assert abs(margins.margin(10) - 0.5) < 0.01
    assert margins.snapshot()["worst_lateness"] == 0.2


def test_lateness_leaves_some_thinking_time_but_the_base_always_stays():
    margins = AdaptiveMargin(base=0.5, max_fraction=0.9)
    margins.observe(planned=0.0, sent=5.0)
    assert margins.margin(1.0) == 0.9  # a 1 s clock: reply at 0.1 s, not later
    assert margins.margin(0.4) == 0.5  # a clock shorter than the base: answer at once
    assert margins.margin(100.0) == 0.5 + 1.5 * 5.0
