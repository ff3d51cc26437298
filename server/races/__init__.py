"""Races: a ledger's state and what followers are shown of it, the desk
that serves race requests, the ledgers held here, a race's clocks and
settling, a start's deal and games, the followers of a race and a racer's
progress.

It may import every part below it: ``server.model``, ``server.runtime``,
``server.storage``, ``server.net``, ``server.deals`` and ``server.games``
(docs/architecture.md, "The server's folders").
"""
