"""The words a race ledger is known by: the status of its stored header
(``LEDGER_STATUS``, which tells a ledger from a game's header) and the
phases a race goes through.

They live below the races so that the parts which only name them (the
game table refusing to load a ledger as a game, the metrics counting
races by phase) need nothing else of a race.
"""

from __future__ import annotations

LEDGER_STATUS = "race"
LOBBY, EXPIRED, COUNTDOWN, RUNNING, FINISHED = "lobby", "expired", "countdown", "running", "finished"
