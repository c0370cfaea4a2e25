"""What the player and a search exchange: the `Search` interface every search
implements (`interface`), and the belief a GDL-II player hands to
`Search.observe` (`belief`).

The bottom room: it must not import any other room of the search (a search
is built on the contract, never the other way round), and it holds no search
of its own beyond the interface's defaults.
"""
