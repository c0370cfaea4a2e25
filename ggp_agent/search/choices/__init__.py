"""The settings a search leaves at "auto", decided at START from the rules:
move, effect or destination codes (`codes_choice`, `destinations`), whole or
capped priors (`priors_choice`), together in `start_choices`, which logs each
decision with its reason.

Each decision is measured by random playouts from the start state within its
share of the START clock. Nothing here runs during a turn, touches a
search's tree, or overrides a setting the player gave; it imports only the
`tree` room's settings and tables.
"""
