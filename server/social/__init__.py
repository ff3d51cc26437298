"""A player's life beyond one game or race: the devices a player plays
from (``devices``: link codes, revocation and token rotation, heard by
every process).

It may import every part below it: ``server.model``, ``server.runtime``,
``server.storage``, ``server.net``, ``server.deals``, ``server.games`` and
``server.races`` (docs/architecture.md, "The server's folders").
"""
