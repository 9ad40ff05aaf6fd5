"""Hosted tables: games kept on the server's side, in a table store, and the streams that follow
them.

- ``store``: the table store on Redis or Valkey (``--table-store``): each table's latest sealed
  state, its initial state and its moves, moved on by compare-and-set on the revision, each new
  revision published;
- ``watchers``: the watchers of a worker, held to its bounds, and the reader of what the store
  publishes, so that a watcher on one server sees the moves applied through any other.

What a table's moves mean (the engines, the codecs, who may ask) is the servicer's business
(``service.calls.hosting``, ``service.calls.table_feed``): here a state and a move are bytes.
"""
