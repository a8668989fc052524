"""Classifying addresses and checking hosts before a connection."""

from __future__ import annotations

import ipaddress
import socket

import pytest

from lull.tools.net.netguard import (
    BlockedAddress,
    NetworkPolicy,
    classify,
    find_non_public,
    system_resolver,
)


@pytest.mark.parametrize(
    ("address", "kind"),
    [
        ("8.8.8.8", "public"),
        ("2606:4700:4700::1111", "public"),
        ("127.0.0.1", "loopback"),
        ("127.1.2.3", "loopback"),
        ("::1", "loopback"),
        ("::ffff:127.0.0.1", "loopback"),
        ("2002:7f00:1::", "loopback"),  # 6to4 around 127.0.0.1
        ("64:ff9b::7f00:1", "loopback"),  # NAT64 around 127.0.0.1
        ("10.0.0.1", "private"),
        ("172.16.5.4", "private"),
        ("192.168.1.1", "private"),
        ("::ffff:192.168.1.1", "private"),
        ("fd12:3456::1", "private"),
        ("169.254.169.254", "metadata"),
        ("fd00:ec2::254", "metadata"),
        ("100.100.100.200", "metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("100.64.0.1", "reserved"),  # carrier-grade NAT
        ("240.0.0.1", "reserved"),
    ],
)
def test_classify(address: str, kind: str) -> None:
    assert classify(ipaddress.ip_address(address)) == kind


def test_a_host_is_private_if_any_of_its_addresses_is() -> None:
    assert find_non_public("example.test", ["93.184.216.34"]) is None
    finding = find_non_public("example.test", ["93.184.216.34", "10.0.0.7"])
    assert finding is not None
    assert finding.describe() == "example.test resolves to 10.0.0.7, a private address"
    metadata = find_non_public("169.254.169.254", ["169.254.169.254"])
    assert metadata is not None and metadata.describe() == (
        "169.254.169.254 is a cloud metadata address"
    )
    zone = find_non_public("fe80::1%eth0", ["fe80::1%eth0"])
    assert zone is not None and zone.kind == "link-local"


def test_numeric_spellings_of_loopback_resolve_to_loopback() -> None:
    for spelling in ("localhost", "2130706433", "127.1"):
        finding = find_non_public(spelling, system_resolver(spelling, 80))
        assert finding is not None and finding.kind == "loopback", spelling


def test_policy_blocks_unless_allowed_or_approved() -> None:
    def resolver(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    with pytest.raises(BlockedAddress, match=r"admin\.local resolves to 127\.0\.0\.1"):
        NetworkPolicy(resolver=resolver).addresses("admin.local", 80)
    approved = NetworkPolicy(approved_hosts=frozenset({"admin.local"}), resolver=resolver)
    assert approved.addresses("ADMIN.local", 80) == ["127.0.0.1"]
    assert NetworkPolicy(allow_all=True, resolver=resolver).addresses("x", 80) == ["127.0.0.1"]


def test_connect_goes_to_a_checked_address_or_nowhere() -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        answers = iter([["127.0.0.1"]])
        blocked = NetworkPolicy(resolver=lambda host, p: next(answers))
        with pytest.raises(BlockedAddress):
            blocked.connect(("name.test", port), 2)
        proxy = NetworkPolicy(trusted_endpoints=frozenset({("127.0.0.1", port)}))
        with proxy.connect(("127.0.0.1", port), 2) as sock:
            assert sock.getpeername()[1] == port
