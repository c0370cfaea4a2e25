"""One match at a time, as a game manager sees the player: messages in, moves out.

`protocol.py` parses the GGP messages and prints the replies; `player.py` runs
each match's lifecycle (START, STOP, ABORT) and `play.py` each PLAY; `match.py`
holds a match's data, `config.py` the player's settings, `timing.py` the safety
margin, `records.py` the match records. Knows nothing of HTTP (`server/`).
"""
