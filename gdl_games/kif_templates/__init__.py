"""The templates of `gdl_games/generate.py`: one module per game family, and
the KIF writing they share (`kif`).

Each family is one function of the board size (`hex_game(n)`, ...) that
returns a file's whole text; `generate.all_games` says which sizes the library
ships. Standard library only, like the generator.
"""
