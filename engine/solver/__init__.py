"""The solver: wins, proofs, hints, automatic finishing and post-game analysis.

Pure like the rest of the engine: budgets are node counts, never seconds
(the same position and budget always give the same answer), and the
certificate files are read by the server (``server/deals/pools.py``), not
here.  ``search`` has the algorithms, ``driver`` how a budget is spent,
one module per game its move ordering and pruning, ``pools`` and
``certify`` the verified deals, ``assist`` hints and automatic finishing,
``analysis`` where a lost game went wrong.
"""

from __future__ import annotations

from .analysis import Analysis, analyse
from .assist import auto_finish, hint
from .driver import DEFAULT_BUDGET, solve
from .search import UNKNOWN, UNWINNABLE, WON, Domain, Solution, Step

__all__ = [
    "DEFAULT_BUDGET",
    "UNKNOWN",
    "UNWINNABLE",
    "WON",
    "Analysis",
    "Domain",
    "Solution",
    "Step",
    "analyse",
    "auto_finish",
    "hint",
    "solve",
]
