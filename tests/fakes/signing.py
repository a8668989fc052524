"""HMAC signatures for thinking blocks and opaque redacted_thinking data issued by the fake."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os

#: Fixed default secret so signatures are stable across fake-server instances and runs.
DEFAULT_SECRET = b"lull-fake-server-thinking-secret"
_SIG_PREFIX = b"LFS1"
_REDACTED_PREFIX = b"LFR1"


class Signer:
    """Issues and verifies thinking signatures and redacted-thinking payloads."""

    def __init__(self, secret: bytes = DEFAULT_SECRET) -> None:
        self._secret = secret

    def _mac(self, label: bytes, payload: bytes) -> bytes:
        return hmac.new(self._secret, label + b"\x00" + payload, hashlib.sha256).digest()

    def sign_thinking(self, text: str) -> str:
        """Return the signature this server issues for exactly ``text``."""
        mac = self._mac(b"thinking", text.encode("utf-8"))
        return base64.b64encode(_SIG_PREFIX + mac).decode("ascii")

    def verify_thinking(self, text: str, signature: str) -> bool:
        """True when ``signature`` is the one issued for ``text``."""
        return hmac.compare_digest(self.sign_thinking(text), signature)

    def issue_redacted(self) -> str:
        """Return fresh opaque ``redacted_thinking`` data that :meth:`verify_redacted` accepts."""
        nonce = os.urandom(24)
        mac = self._mac(b"redacted", nonce)
        return base64.b64encode(_REDACTED_PREFIX + nonce + mac).decode("ascii")

    def verify_redacted(self, data: str) -> bool:
        """True when ``data`` is a redacted-thinking payload this secret issued, unmodified."""
        try:
            raw = base64.b64decode(data.encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError):
            return False
        if not raw.startswith(_REDACTED_PREFIX) or len(raw) != len(_REDACTED_PREFIX) + 24 + 32:
            return False
        nonce = raw[len(_REDACTED_PREFIX) : len(_REDACTED_PREFIX) + 24]
        return hmac.compare_digest(self._mac(b"redacted", nonce), raw[-32:])
