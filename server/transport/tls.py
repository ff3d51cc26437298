"""TLS on the server's one port: ``wss://`` and ``https://`` side by side.

The certificate and key are read once, when the server is made, before
anything listens: a path that is missing, unreadable, not PEM, or a key
that does not match the certificate is the operator's mistake, so it is
a ``SettingsError`` (``arena serve`` exits 2 with one line) rather than a
server that starts and then fails every handshake.  Without
``ssl_certfile`` the server speaks plain TCP, as behind a proxy that
terminates TLS (``deploy/haproxy.cfg``).

A client that speaks plain HTTP or ``ws://`` to a TLS port fails its
handshake; asyncio logs such failures only in its debug mode, so a
mistaken client costs the server no log lines.
"""

from __future__ import annotations

import ssl

from server.runtime.settings import Settings, SettingsError, env_name

REASONS = {"KEY_VALUES_MISMATCH": "the key does not match the certificate"}
"""OpenSSL's reasons in an operator's words; any other is shown as OpenSSL gives it."""
NOT_PEM = "not a PEM certificate chain and key"
"""Python reports a file OpenSSL could not parse with no reason of OpenSSL's."""


def server_context(settings: Settings) -> ssl.SSLContext | None:
    """The TLS context of ``settings`` (None: plain TCP); ``SettingsError``
    naming the files and the reason when they cannot serve."""
    certfile, keyfile = settings.ssl_certfile, settings.ssl_keyfile
    if certfile is None:
        if keyfile is not None:
            raise SettingsError(f"{env_name('ssl_keyfile')} (--ssl-keyfile) needs {env_name('ssl_certfile')} (--ssl-certfile)")
        return None
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    try:
        context.load_cert_chain(certfile, keyfile)
    except ssl.SSLError as error:
        key = "its own key" if keyfile is None else f"the key {keyfile}"
        raise SettingsError(f"cannot serve TLS with the certificate {certfile} and {key}: {_reason(error)}") from None
    except OSError as error:
        raise SettingsError(f"cannot read {error.filename or certfile}: {error.strerror or error}") from None
    return context


def _reason(error: ssl.SSLError) -> str:
    reason = error.reason
    if reason is None or reason == "PEM lib":
        return NOT_PEM
    return REASONS.get(reason, reason)
