"""Trust: who may see and do what.

- ``sealing``: sealed states, which a caller can neither read nor forge;
- ``seat_tokens``: stateless capabilities for one seat (or the spectator) of one game;
- ``seats``: a game's seating (match id, bot seats) and what a token lets a call see and do;
- ``revision_fence``: the revision store that refuses an older state of a game.
"""
