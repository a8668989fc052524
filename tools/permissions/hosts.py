"""Host names as ``web_fetch(domain:…)`` rules compare them: an address in one spelling.

The resolver accepts an IPv4 address in many spellings (``2130706433``, ``0x7f.1``,
``0177.0.0.1``, ``127.1``) and IPv6 can embed one (``::ffff:127.0.0.1``); a rule written for
``127.0.0.1`` must match them all, so both sides are compared in one form.
"""

from __future__ import annotations

import ipaddress


def canonical_host(host: str) -> str:
    """``host`` lowercased, without a trailing dot; an address in its standard form (an
    IPv4 address in any spelling the resolver accepts as dotted decimal, an IPv4-mapped IPv6
    address as its IPv4 address)."""
    name = host.strip().lower().rstrip(".")
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    ipv4 = _ipv4_spelling(name)
    if ipv4 is not None:
        return ipv4
    try:
        address = ipaddress.ip_address(name.split("%", 1)[0])
    except ValueError:
        return name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return str(address.ipv4_mapped)
    return str(address)


def _ipv4_spelling(name: str) -> str | None:
    """An IPv4 address written as ``inet_aton`` reads it (1–4 parts, each decimal, ``0x``
    hex or ``0`` octal, the last filling the remaining bytes), dotted; None if it is not one."""
    parts = name.split(".")
    if not 1 <= len(parts) <= 4:
        return None
    numbers: list[int] = []
    for part in parts:
        number = _number(part)
        if number is None:
            return None
        numbers.append(number)
    *leading, last = numbers
    if any(n > 0xFF for n in leading) or last >= 1 << (8 * (5 - len(numbers))):
        return None
    value = last
    for index, number in enumerate(leading):
        value |= number << (8 * (3 - index))
    return str(ipaddress.IPv4Address(value))


def _number(part: str) -> int | None:
    """One part of an IPv4 spelling as a number, or None."""
    try:
        if part[:2] in ("0x", "0X"):
            return int(part[2:], 16) if part[2:] else 0
        if len(part) > 1 and part.startswith("0"):
            return int(part[1:], 8)
        return int(part, 10) if part.isdigit() else None
    except ValueError:
        return None
