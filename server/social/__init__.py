"""The people around a player: the devices it plays from (``devices``:
link codes, revocation and token rotation, heard by every process), its
friends, what it is told while away (notifications), who of them is
online (presence), and the races they challenge each other to.

What is said to a player rather than to a game goes through the one
``server.social.bus.PlayerBus``: a message for a player reaches each of
its connections on this process at once and every other process through
the store's pub/sub.

It may import every part below it: ``server.model``, ``server.runtime``,
``server.storage``, ``server.net``, ``server.deals``, ``server.games`` and
``server.races`` (docs/architecture.md, "The server's folders").
"""
