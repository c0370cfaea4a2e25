"""The referee's side: a local GameController, who sits in each seat, and tournaments.

`controller.py` runs one match over HTTP against any GGP players and records
it; `lineup.py` reads player specifications and starts in-process players
behind real servers; `tournament.py` plays many matches on a process pool or a
Dask cluster. Beside the server: it starts servers, and nothing imports it but
the command line.
"""
