"""`ggp-agent`, the command line: one module per group of subcommands.

`main.py` builds the parser and runs a subcommand; `games.py` looks at a game
(check, bench, replay, survey), `service.py` runs the agent (serve, warmup,
ping), `matches.py` referees matches (match, tournament). Each subcommand is a
thin wrapper: parse arguments, call the library, print.
"""
