"""A urllib opener that checks every host it connects to, and every redirect, with a policy.

Connections go to the very addresses :class:`lull.tools.net.netguard.NetworkPolicy` checked (no
second DNS lookup to rebind), and a redirect is checked before it is followed, so neither a
public-looking name nor a redirect can lead a fetch to a loopback or private address the
user did not approve.
"""

from __future__ import annotations

import http.client
import socket
import urllib.parse
import urllib.request
from typing import IO, Any

from lull.tools.net.netguard import BlockedAddress, NetworkPolicy


class _GuardedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection whose socket comes from ``policy.connect``."""

    def __init__(self, host: str, *args: Any, policy: NetworkPolicy, **kwargs: Any) -> None:
        super().__init__(host, *args, **kwargs)
        self._create_connection = policy.connect


class _GuardedHTTPSConnection(http.client.HTTPSConnection):
    """An HTTPS connection whose socket comes from ``policy.connect`` (TLS checks the name)."""

    def __init__(self, host: str, *args: Any, policy: NetworkPolicy, **kwargs: Any) -> None:
        super().__init__(host, *args, **kwargs)
        self._create_connection = policy.connect


class _GuardedHTTPHandler(urllib.request.HTTPHandler):
    """Opens http:// URLs over guarded connections."""

    def __init__(self, policy: NetworkPolicy) -> None:
        super().__init__()
        self.policy = policy

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        """Open ``req`` on a connection to a checked address."""
        # typeshed's protocol does not know extra constructor keywords; urllib passes them on
        return self.do_open(_GuardedHTTPConnection, req, policy=self.policy)  # type: ignore[arg-type]


class _GuardedHTTPSHandler(urllib.request.HTTPSHandler):
    """Opens https:// URLs over guarded connections."""

    def __init__(self, policy: NetworkPolicy) -> None:
        super().__init__()
        self.policy = policy

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        """Open ``req`` on a TLS connection to a checked address."""
        context = getattr(self, "_context", None)
        return self.do_open(
            _GuardedHTTPSConnection,  # type: ignore[arg-type]
            req,
            context=context,
            policy=self.policy,
        )


def check_target(url: str, policy: NetworkPolicy, detail: str = "") -> None:
    """Raise :class:`BlockedAddress` if ``url``'s host resolves to an address ``policy``
    does not allow (resolution failures are left to the connection to report)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname
    if not host or policy.may_reach(host):
        return
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return
    try:
        policy.addresses(host, port)
    except BlockedAddress as blocked:
        raise BlockedAddress(blocked.finding, detail) from None
    except (OSError, UnicodeError):
        return


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """Follows a redirect only after checking where it leads."""

    def __init__(self, policy: NetworkPolicy) -> None:
        super().__init__()
        self.policy = policy

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: http.client.HTTPMessage,
        newurl: str,
    ) -> urllib.request.Request | None:
        """The request for ``newurl``, after the policy allowed its host."""
        target = urllib.parse.urljoin(req.full_url, newurl)
        try:
            check_target(target, self.policy, f" (a redirect from {req.full_url} to {target})")
        except BlockedAddress:
            fp.close()
            raise
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def guarded_opener(policy: NetworkPolicy) -> urllib.request.OpenerDirector:
    """An opener (environment proxies honoured) that connects only where ``policy`` allows."""
    return urllib.request.build_opener(
        urllib.request.ProxyHandler(),
        _GuardedHTTPHandler(policy),
        _GuardedHTTPSHandler(policy),
        _CheckedRedirects(policy),
    )


def proxy_endpoints() -> frozenset[tuple[str, int]]:
    """(host, port) of the proxies the environment configures (the user's own choice)."""
    endpoints = set()
    for scheme, url in urllib.request.getproxies().items():
        if scheme == "no":
            continue
        parts = urllib.parse.urlsplit(url if "://" in url else f"http://{url}")
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:
            continue
        if parts.hostname:
            endpoints.add((parts.hostname.lower(), port))
    return frozenset(endpoints)


def transient_network_failure(reason: object) -> bool:
    """Whether a network failure may go away on its own (a reset or dropped connection, a
    temporary resolver failure): a refused connection (nothing listens there) and a host
    name that does not resolve are not worth trying again."""
    if isinstance(reason, socket.gaierror):
        return reason.errno == socket.EAI_AGAIN
    return not isinstance(reason, ConnectionRefusedError)
