"""Connected peers and what reaches them: a peer's state, the outbox
(the one fan-out, backlogs, overflow), admission of connections and the rate
limits.

It may import ``server.model``, ``server.runtime`` and ``server.storage``
(docs/architecture.md, "The server's folders").
"""
