"""Which network addresses a tool may reach without the user's approval.

Loopback, private, link-local, cloud-metadata and other non-public addresses are where
local admin endpoints and internal services live; reaching them from a tool the model
drives is a way to poke those services or to send workspace data somewhere it should not
go. :func:`classify` names what kind of address an IP is; :class:`NetworkPolicy` decides,
for one host at connect time, whether every address it resolves to may be contacted.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

RESOLVE_TIMEOUT_SECONDS = 5.0
"""How long a host name may take to resolve."""

PRIVATE_NETWORK_HINT = (
    "To let web_fetch reach such addresses without asking, the user can set "
    '"tools.allowPrivateNetwork": true in their user settings (or LULL_ALLOW_PRIVATE_NETWORK=1), '
    "or run lull with --approval-mode yolo."
)

AddressKind = Literal[
    "public",
    "loopback",
    "private",
    "link-local",
    "metadata",
    "unspecified",
    "multicast",
    "reserved",
]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str, int], list[str]]
"""Resolves a host name and port to IP address strings (``getaddrinfo`` by default)."""

METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
        ipaddress.ip_address("fd00:ec2::254"),  # AWS over IPv6
    }
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address stands for (mapped, 6to4, NAT64), if any."""
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def classify(ip: IPAddress) -> AddressKind:
    """What kind of address ``ip`` is; only ``public`` may be reached without approval."""
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(ip)
        if embedded is not None:
            return classify(embedded)
    if ip in METADATA_ADDRESSES:
        return "metadata"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_multicast:
        return "multicast"
    if ip.is_reserved:
        return "reserved"
    if ip.is_private:
        return "private"
    if not ip.is_global:
        return "reserved"
    return "public"


def system_resolver(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (TCP), in the order the system gives them."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    seen: list[str] = []
    for *_, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in seen:
            seen.append(address)
    return seen


def _parse(address: str) -> IPAddress:
    """An address string (an IPv6 zone index is allowed) as an ``ipaddress`` object."""
    return ipaddress.ip_address(address.split("%", 1)[0])


@dataclass(frozen=True, slots=True)
class Finding:
    """A host that resolves to at least one non-public address."""

    host: str
    address: str
    kind: AddressKind

    def describe(self) -> str:
        """``localhost resolves to 127.0.0.1, a loopback address`` (one phrase)."""
        article = "an" if self.kind[0] in "aeiou" else "a"
        what = f"{article} {self.kind} address"
        if self.kind == "metadata":
            what = "a cloud metadata address"
        if _is_literal(self.host) and _parse(self.host.strip("[]")) == _parse(self.address):
            return f"{self.address} is {what}"
        return f"{self.host} resolves to {self.address}, {what}"


def _is_literal(host: str) -> bool:
    """True if ``host`` is an IP address written out (``[::1]`` included)."""
    try:
        _parse(host.strip("[]"))
    except ValueError:
        return False
    return True


def find_non_public(host: str, addresses: Sequence[str]) -> Finding | None:
    """The first address of ``host`` that is not public, or None if all are public."""
    for address in addresses:
        try:
            kind = classify(_parse(address))
        except ValueError:
            return Finding(host, address, "reserved")
        if kind != "public":
            return Finding(host, address, kind)
    return None


class BlockedAddress(OSError):
    """A connection to a non-public address that was not approved; the message says why."""

    def __init__(self, finding: Finding, detail: str = "") -> None:
        super().__init__(finding.describe() + detail)
        self.finding = finding


@dataclass(frozen=True, slots=True)
class NetworkPolicy:
    """Which hosts may resolve to non-public addresses.

    ``allow_all`` (``tools.allowPrivateNetwork``) lets every host through; otherwise only
    hosts in ``approved_hosts`` (the user approved a call naming them; compared
    case-insensitively) may. ``trusted_endpoints`` are (host, port) pairs a connection may
    always go to: the user's own proxies (the URL a proxy fetches is checked separately).
    """

    allow_all: bool = False
    approved_hosts: frozenset[str] = frozenset()
    trusted_endpoints: frozenset[tuple[str, int]] = frozenset()
    resolver: Resolver = field(default=system_resolver)

    def may_reach(self, host: str) -> bool:
        """True if ``host`` may resolve to anything at all (no check needed)."""
        return self.allow_all or host.lower().strip("[]") in self.approved_hosts

    def addresses(self, host: str, port: int) -> list[str]:
        """Resolve ``host`` and return its addresses; raise :class:`BlockedAddress` if one is
        not public and ``host`` may not reach such addresses."""
        addresses = self.resolver(host.strip("[]"), port)
        if not self.may_reach(host):
            finding = find_non_public(host, addresses)
            if finding is not None:
                raise BlockedAddress(finding)
        return addresses

    def connect(
        self,
        address: tuple[str, int],
        timeout: Any = socket._GLOBAL_DEFAULT_TIMEOUT,  # type: ignore[attr-defined]
        source_address: tuple[str, int] | None = None,
    ) -> socket.socket:
        """``socket.create_connection`` to a checked address of ``address``'s host.

        The connection goes to one of the very addresses that were checked, so a name that
        resolves differently the second time (DNS rebinding) cannot slip through.
        """
        host, port = address
        if (host.lower(), port) in self.trusted_endpoints:
            return socket.create_connection(address, timeout, source_address)
        last: OSError | None = None
        for ip in self.addresses(host, port):
            try:
                return socket.create_connection((ip, port), timeout, source_address)
            except OSError as error:
                last = error
        raise last or OSError(f"{host} did not resolve to any address")
