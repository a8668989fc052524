"""The debug log: lull's records in the file (and on stderr with --debug); other libraries'
records in the file only, within a budget, never on the terminal."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from lull.log import THIRD_PARTY_BUDGET, setup_logging


@pytest.fixture
def restored() -> Iterator[None]:
    """Python's root logger and lull's as they were before the test."""
    python_root, lull = logging.getLogger(), logging.getLogger("lull")
    saved = (python_root.handlers[:], lull.handlers[:], lull.level, lull.propagate)
    try:
        yield
    finally:
        for logger in (python_root, lull):
            for handler in logger.handlers:
                if handler not in saved[0] + saved[1]:
                    handler.close()
        python_root.handlers[:], lull.handlers[:] = saved[0], saved[1]
        lull.setLevel(saved[2])
        lull.propagate = saved[3]


@pytest.mark.usefixtures("restored")
@pytest.mark.parametrize("debug", [False, True])
def test_third_party_records_go_to_the_file_only_and_within_a_budget(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], debug: bool
) -> None:
    path = tmp_path / "lull.log"
    setup_logging(path, debug=debug)
    setup_logging(path, debug=debug)  # set up twice (a second run in one process): one handler
    sdk = logging.getLogger("mcp.client.stdio")
    for n in range(THIRD_PARTY_BUDGET * 4):
        try:
            raise ValueError(f"junk line {n}")
        except ValueError:
            sdk.exception("Failed to parse JSONRPC message from server")
    logging.getLogger("httpx").warning("a warning of another library")
    logging.getLogger("lull.mcp").warning("lull's own warning")
    err = capfd.readouterr().err
    assert "junk line" not in err and "httpx" not in err and "Traceback" not in err
    assert ("lull's own warning" in err) is debug
    text = path.read_text()
    assert text.count("Failed to parse JSONRPC") == THIRD_PARTY_BUDGET
    assert f"mcp: more log records left out ({THIRD_PARTY_BUDGET} written)" in text
    assert "a warning of another library" in text and "lull's own warning" in text


@pytest.mark.usefixtures("restored")
def test_without_a_log_file_third_party_records_go_nowhere(
    capfd: pytest.CaptureFixture[str],
) -> None:
    logging.getLogger().handlers.clear()  # as outside pytest: Python's last resort is stderr
    setup_logging(None, debug=False)
    logging.getLogger("anyio").error("a loud library")
    assert "a loud library" not in capfd.readouterr().err
