"""Where deals come from and who may play them ranked: numbered deals and
the verified pools, secret seeds and their proofs, the daily deals and
their keeper, the daily variants, and the ranked claims kept in the store.

It may import ``server.model``, ``server.runtime``, ``server.storage`` and
``server.net`` (docs/architecture.md, "The server's folders").
"""
