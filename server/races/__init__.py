"""Races: a ledger's state, the desk that serves race requests, the
ledgers held here, a start's deal and games, the followers of a race and a
racer's progress.

It may import every part below it: ``server.model``, ``server.runtime``,
``server.storage``, ``server.net``, ``server.deals`` and ``server.games``
(docs/architecture.md, "The server's folders").
"""
