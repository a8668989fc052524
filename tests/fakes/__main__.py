"""Run the fake by hand: ``python -m tests.fakes --port 8765 [--script r.json] [--demo]``."""

from __future__ import annotations

import argparse
import json
import sys
import threading
from pathlib import Path

from tests.fakes.openai_validate import DIALECTS
from tests.fakes.quirks import ServerQuirks
from tests.fakes.request_text import RecentMessages
from tests.fakes.script import Reply, demo_reply, reply_from_dict
from tests.fakes.server import FakeServer


def load_script(path: Path) -> list[Reply]:
    """Read a JSON list of Reply dicts; raises ValueError naming the file and entry."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ValueError(f"{path}: cannot read script: {exc.strerror}") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    if not isinstance(data, list):
        raise ValueError(f"{path}: a script must be a JSON list of reply objects")
    replies = []
    for i, item in enumerate(data):
        if not isinstance(item, dict):
            raise ValueError(f'{path}: entry [{i}] must be an object like {{"text": "..."}}')
        replies.append(reply_from_dict(item, where=f"{path}: entry [{i}]"))
    return replies


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """Command-line options."""
    parser = argparse.ArgumentParser(prog="python -m tests.fakes", description=__doc__)
    parser.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0 = any)")
    parser.add_argument("--script", type=Path, help="JSON list of replies to serve in order")
    parser.add_argument("--dialect", choices=DIALECTS, default="openai")
    parser.add_argument(
        "--demo", action="store_true", help='"list files" -> list_directory call, then a summary'
    )
    parser.add_argument(
        "--imitate",
        choices=sorted(IMITATIONS),
        help="a real server's quirks (no streamed usage, empty 200 on overflow, 500 on null …)",
    )
    parser.add_argument(
        "--context", type=int, help="the model's context window in tokens (longer prompts fail)"
    )
    return parser.parse_args(argv)


IMITATIONS = {"llama-cpp-python": ServerQuirks.llama_cpp_python, "vllm": ServerQuirks.vllm}


def main(argv: list[str] | None = None) -> int:
    """Serve until Ctrl+C; returns the exit status."""
    args = parse_args(argv)
    fake = FakeServer(port=args.port)
    fake.freeze_journal = True  # its own process: the journal is never read, only grows
    fake.recent_messages = RecentMessages()  # ... nor changed: repeated messages share values
    fake.dialect = args.dialect
    if args.demo:
        fake.default_reply = demo_reply()
    if args.imitate:
        fake.quirks = IMITATIONS[args.imitate]()
    fake.max_context_tokens = args.context
    try:
        if args.script:
            fake.script(*load_script(args.script))
        fake.start()
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"fake LLM server listening on {fake.url}  (dialect {fake.dialect})")
    print(f"ANTHROPIC_BASE_URL={fake.url}")
    print("ANTHROPIC_API_KEY=fake")
    print(f"OPENAI_BASE_URL={fake.url}/v1")
    print("OPENAI_API_KEY=fake")
    print("Ctrl+C to stop.", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
