"""The process-wide count behind the collector's freeze and the stall watch:
made once for overlapping users, undone by the last, and a leave without an
enter is an error, not a silent count below zero."""

import pytest

from ggp_agent.player.shared_use import SharedUse


def test_the_first_user_makes_the_thing_and_the_last_undoes_it():
    calls = []
    use = SharedUse(first=lambda: calls.append("first") or "watch", last=lambda thing: calls.append(f"last {thing}"),
                    every=lambda: calls.append("every"))
    assert use.enter() == "watch" and use.enter() == "watch" and use.users == 2
    use.leave()
    assert calls == ["first", "every", "every"]  # one user still holds it
    use.leave()
    assert calls == ["first", "every", "every", "last watch"] and use.users == 0
    assert use.enter() == "watch" and calls[-2:] == ["first", "every"]  # made again after the last left


def test_a_leave_without_an_enter_raises():
    use = SharedUse(first=lambda: None, last=lambda thing: None)
    with pytest.raises(RuntimeError, match="left more often than entered"):
        use.leave()
    assert use.users == 0
