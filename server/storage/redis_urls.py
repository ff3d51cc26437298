"""URLs that name several Redis hosts: ``redis+sentinel://`` and
``redis+cluster://``.

redis-py has a URL form for one server only, hence these, in the spirit
of its ``redis://`` URLs: ``SCHEME[:PASSWORD@]HOST[:PORT][,HOST[:PORT]...]/PATH``,
where a HOST may be an IPv6 address in brackets (``[::1]:26379``).
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import unquote


class HostsURL(NamedTuple):
    """A URL's hosts, its password (the Redis servers', not the sentinels')
    and the parts of its path."""

    hosts: list[tuple[str, int]]
    password: str | None
    path: list[str]


def hosts_url(url: str, scheme: str, default_port: int, form: str) -> HostsURL:
    """Read ``url`` of ``scheme``; ``ValueError`` says what is wrong,
    after ``form`` (the URL's form, for the operator)."""
    try:
        return _read(url, scheme, default_port)
    except ValueError as error:
        raise ValueError(f"{form}: {without_password(url)!r} ({error})") from None


def without_password(url: str) -> str:
    """``url`` fit for an error message: operators paste errors into
    tickets, so the credentials before ``@`` are masked."""
    head, slashes, rest = url.partition("//")
    netloc, slash, path = rest.partition("/")
    if not slashes or "@" not in netloc:
        return url
    return f"{head}//***@{netloc.rpartition('@')[2]}{slash}{path}"


def _read(url: str, scheme: str, default_port: int) -> HostsURL:
    if not url.startswith(scheme):
        raise ValueError(f"it does not start {scheme}")
    hosts, _, path = url[len(scheme) :].partition("/")
    password = None
    if "@" in hosts:
        credentials, _, hosts = hosts.rpartition("@")
        password = unquote(credentials.partition(":")[2] or credentials) or None
    addresses = [_host_port(part, default_port) for part in hosts.split(",") if part]
    if not addresses:
        raise ValueError("no host")
    return HostsURL(addresses, password, [unquote(part) for part in path.split("/") if part])


def _host_port(text: str, default_port: int) -> tuple[str, int]:
    """``HOST``, ``HOST:PORT``, ``[IPV6]`` or ``[IPV6]:PORT``, as in
    ``redis://`` URLs: an IPv6 address takes its port only in brackets,
    so a bare one (more than one colon) is all host."""
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or not host or (rest and not rest.startswith(":")):
            raise ValueError(f"bad bracketed host in {text!r}")
        port = rest[1:] if rest else None
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
    else:
        host, port = text, None
    if port is None:
        return host, default_port
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"bad port in {text!r}")
    return host, int(port)
