"""Where the server's random values come from.

Tokens, ids, invite codes, nonces, secrets and random deal numbers are
all drawn from an ``Entropy`` the Hub is handed, never from ``secrets``
directly, so a test that hands it a ``SeededEntropy`` gets the same ids,
codes and nonces on every run, and with them the same frames.  The real
one (``SystemEntropy``) draws from ``secrets``; both make every value
from two primitives (bytes and a number below a bound), in the forms
``secrets`` makes them, so a seeded run looks like a real one.

Each part of the Hub draws from a stream of its own (``stream``): parts
run concurrently (a background check of the store, a proof finishing in
a worker process), and with one shared sequence the order they happened
to run in would decide who gets which value.
"""

from __future__ import annotations

import base64
import random
import secrets
from abc import ABC, abstractmethod
from typing import Sequence, TypeVar

from server.model.ids import CODE_ALPHABET, CODE_LENGTH, ID_BYTES

Item = TypeVar("Item")


class Entropy(ABC):
    """Random values in the forms the server uses."""

    @abstractmethod
    def token_bytes(self, nbytes: int) -> bytes: ...

    @abstractmethod
    def randbelow(self, bound: int) -> int:
        """A number in ``range(bound)``."""

    @abstractmethod
    def stream(self, name: str) -> Entropy:
        """The entropy of the part ``name``: its values do not depend on
        what other streams drew, or when."""

    def token_hex(self, nbytes: int) -> str:
        return self.token_bytes(nbytes).hex()

    def token_urlsafe(self, nbytes: int) -> str:
        return base64.urlsafe_b64encode(self.token_bytes(nbytes)).rstrip(b"=").decode("ascii")

    def choice(self, items: Sequence[Item]) -> Item:
        return items[self.randbelow(len(items))]

    def new_id(self, prefix: str) -> str:
        """A random id in the form ``server.model.ids`` names: ``g_`` games,
        ``r_`` races, ``p_`` players, ``s_`` practice sessions."""
        return prefix + self.token_urlsafe(ID_BYTES)

    def new_code(self) -> str:
        """A race invite code (``server.model.ids.normalize_code`` reads it back)."""
        return "".join(self.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


class SystemEntropy(Entropy):
    """The operating system's randomness, as ``secrets`` gives it: what a
    server runs on."""

    def token_bytes(self, nbytes: int) -> bytes:
        return secrets.token_bytes(nbytes)

    def randbelow(self, bound: int) -> int:
        return secrets.randbelow(bound)

    def stream(self, name: str) -> Entropy:
        return self


class SeededEntropy(Entropy):
    """A fixed sequence drawn from ``seed``: the same values in the same
    order on every run, for tests that compare runs.  Predictable, so never
    a server's."""

    def __init__(self, seed: int | str) -> None:
        self._seed = seed
        self._random = random.Random(seed)

    def token_bytes(self, nbytes: int) -> bytes:
        return self._random.randbytes(nbytes)

    def randbelow(self, bound: int) -> int:
        return self._random.randrange(bound)

    def stream(self, name: str) -> Entropy:
        return SeededEntropy(f"{self._seed}/{name}")
