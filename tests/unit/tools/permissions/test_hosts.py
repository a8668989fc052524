"""Host spellings in one form, as the resolver reads them."""

from __future__ import annotations

import socket

import pytest

from lull.tools.permissions.hosts import canonical_host


@pytest.mark.parametrize(
    ("host", "expected"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0x7F.1", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("10.1.2", "10.1.0.2"),
        ("[::ffff:127.0.0.1]", "127.0.0.1"),
        ("::FFFF:7f00:1", "127.0.0.1"),
        ("::1", "::1"),
        ("Docs.Python.org.", "docs.python.org"),
        ("4294967296", "4294967296"),  # too large: no address, a name
        ("1.2.3.256", "1.2.3.256"),
        ("08.1.1.1", "08.1.1.1"),  # not octal: a name
    ],
)
def test_canonical_host(host: str, expected: str) -> None:
    assert canonical_host(host) == expected


@pytest.mark.parametrize("spelling", ["2130706433", "0x7f.1", "0177.0.0.1", "127.1", "0x7f000001"])
def test_the_form_is_the_one_the_system_reads(spelling: str) -> None:
    assert canonical_host(spelling) == socket.inet_ntoa(socket.inet_aton(spelling))
