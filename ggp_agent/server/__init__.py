"""The GGP protocol over HTTP: the aiohttp app (`app.py`) and the status page (`status_page.py`).

The handlers are thin: parsing is `player.protocol`'s job, playing the player's.
"""
