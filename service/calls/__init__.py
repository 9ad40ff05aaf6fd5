"""The call path: one call from the request's bytes to the response's, whatever door it used.

- ``call_path``: the record of a call, the servicer's method called, the failure turned into a
  stable reason, the observers told;
- ``servicer``: the RPCs, each decode → engine → encode;
- ``decoding`` and ``encoding``: from a request to engine values, from engine values to bytes;
- ``replay``: ``ReplayGame``, a game record played through;
- ``games``: the registered games with their codecs and wire keys;
- ``caches`` and ``state_cache``: what a worker keeps from call to call, bounded in bytes.
"""
