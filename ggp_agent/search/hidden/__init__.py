"""Hidden information (GDL-II): Ensemble Determinization MCTS over the player's belief.

`determinized` searches up to T states drawn from the belief, each as a game
of perfect information with an ordinary `TreeSearch` (chance is the `tree`
room's uniform chance node), and `ensemble` holds the rules that turn the
trees' root statistics into one move and change T between turns.

The belief itself is the player's (`contract.belief`); nothing here updates
it, and nothing here changes the trees' kernels.
"""
