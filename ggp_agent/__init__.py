"""ggp-agent: a General Game Playing agent.

GDL rules are read by `gdl`, interpreted by SWI-Prolog in `reasoner`, compiled to a
propositional network in `propnet`, searched by numba kernels in `search`, and
played over HTTP by `server` and `player`.
"""

__version__ = "0.1.0"
