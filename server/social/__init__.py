"""The people around a player: its devices, its friends, what it is told
while away (notifications), who of them is online (presence), and the
races they challenge each other to.

Everything here speaks to a player, wherever it is connected, through the
one ``server.social.bus.PlayerBus``: a message for a player reaches each
of its connections on this process at once and every other process
through the store's pub/sub.
"""
