"""The approval modal: may this tool call run?

Allow once (y); allow always, keeping the suggested rules (``run_shell_command(npm test *)``)
for this session (a), this workspace (w) or everywhere (e); deny (n / Esc); or deny with a
reason the model is shown (r opens the reason box, Enter denies). The call itself is shown so
the user knows what they approve: a diff for edits, the command for shell.

The reason box is hidden until asked for (r, or its button), so no one types a reason while
the one-letter shortcuts are live; once it has focus every letter is text (Input takes them),
so a reason can never allow the call or save a rule.
"""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Static

from lull.model.approvals import Approval
from lull.model.messages import ToolCall
from lull.model.permissions import SaveScope
from lull.model.text import terminal_text
from lull.ui.shared.approvals import always_legend
from lull.ui.tui.widgets.diff_view import render_diff, write_as_diff

PREVIEW_LINES = 30


def call_preview(call: ToolCall, summary: str) -> Text:
    """What the call will do, as the user should see it before allowing it (control
    characters shown, never sent: :func:`terminal_text`)."""
    args = call.arguments
    if call.name == "edit":
        old = str(args.get("old_string", "")).splitlines()
        new = str(args.get("new_string", "")).splitlines()
        diff = "\n".join(difflib.unified_diff(old, new, summary, summary, lineterm=""))
        return render_diff(diff, PREVIEW_LINES)
    if call.name == "write_file":
        return render_diff(write_as_diff(summary, str(args.get("content", ""))), PREVIEW_LINES)
    if call.name == "run_shell_command":
        return Text(terminal_text(f"$ {args.get('command', '')}"), style="bold")
    shown = json.dumps(dict(args), indent=2, ensure_ascii=False, default=str)
    lines = shown.splitlines()
    extra = f"\n… {len(lines) - PREVIEW_LINES} more lines" if len(lines) > PREVIEW_LINES else ""
    return Text(terminal_text("\n".join(lines[:PREVIEW_LINES])) + extra)


class ApprovalScreen(ModalScreen[Approval]):
    """Asks about one tool call; dismisses with the user's :class:`Approval`."""

    CSS_PATH = Path(__file__).with_name("approval.tcss")
    BINDINGS = [  # noqa: RUF012 (Textual's class-level binding table)
        Binding("y", "allow", "allow once"),
        Binding("a", "allow_always('session')", "always (session)"),
        Binding("w", "allow_always('workspace')", "always (workspace)"),
        Binding("e", "allow_always('user')", "always (everywhere)"),
        Binding("n", "deny", "deny"),
        Binding("r", "open_reason", "deny with a reason"),
        Binding("escape", "deny", "deny", show=False),
    ]

    def __init__(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.call = call
        self.summary = summary
        self.rules = rules

    def compose(self) -> ComposeResult:
        """Title, the call's preview, the buttons and the reason box."""
        with Vertical(id="approval-dialog"):
            title = Text("Allow ", style="bold")
            title.append(self.call.name, style="bold underline")
            title.append(f"  {terminal_text(self.summary)}" if self.summary else "")
            title.append(" ?", style="bold")
            yield Static(title, id="approval-title", markup=False)
            with VerticalScroll(id="approval-preview"):
                yield Static(call_preview(self.call, self.summary), markup=False)
            with Horizontal(id="approval-buttons", classes="approval-row"):
                yield Button(Text("Allow once (y)"), variant="success", id="allow", compact=True)
                yield Button(Text("Deny (n)"), variant="error", id="deny", compact=True)
                yield Button(Text("Deny, say why (r)"), id="reason", compact=True)
            with Horizontal(id="approval-always", classes="approval-row"):  # fits 60 columns
                yield Button(
                    Text("Always: session (a)"), variant="primary", id="always", compact=True
                )
                yield Button(Text("workspace (w)"), id="workspace", compact=True)
                yield Button(Text("everywhere (e)"), id="everywhere", compact=True)
            legend = (
                always_legend(self.call, self.rules) + " (a: session, w: workspace, e: everywhere)"
            )
            yield Static(Text(terminal_text(legend)), id="approval-legend")
            reason = Input(
                placeholder="why not? (the model sees it); Enter denies, Esc too",
                id="approval-reason",
            )
            reason.display = False
            yield reason

    def on_mount(self) -> None:
        """Focus "allow once" so y/a/n work at once."""
        self.query_one("#allow", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        """A button was clicked."""
        event.stop()
        scopes: dict[str, SaveScope] = {
            "always": "session",
            "workspace": "workspace",
            "everywhere": "user",
        }
        button = event.button.id or ""
        if button == "allow":
            self.action_allow()
        elif button == "reason":
            self.action_open_reason()
        elif button in scopes:
            self.action_allow_always(scopes[button])
        else:
            self.action_deny()

    def action_open_reason(self) -> None:
        """Show the reason box and move the focus there: what is typed now is the reason."""
        reason = self.query_one("#approval-reason", Input)
        reason.display = True
        reason.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        """Enter in the reason box denies with that reason."""
        event.stop()
        self.action_deny()

    def action_allow(self) -> None:
        """Run this call."""
        self.dismiss(Approval("allow"))

    def action_allow_always(self, scope: SaveScope = "session") -> None:
        """Run this call and keep the suggested rules for ``scope`` (session, workspace or
        user: everywhere)."""
        self.dismiss(Approval("allow_always", remember=scope))

    def action_deny(self) -> None:
        """Do not run it; the reason typed (if any) goes to the model."""
        reason = self.query_one("#approval-reason", Input).value.strip()
        self.dismiss(Approval("deny", reason or None))
