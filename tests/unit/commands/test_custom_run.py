"""Running custom slash commands against the strict fake: every substitution, the approval of
``!`command```, /help, the model a command names, and a broken file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lull.commands import run_command
from lull.commands.custom_run import prompt_template, substitute_arguments
from lull.engine.calls.approvals import AllowApprover, DenyApprover
from lull.model.events import Notice, ToolFinished, TurnFinished
from lull.runtime import Runtime
from lull.settings.paths import user_commands_dir
from lull.settings.workspaces import trust
from tests.fakes import FakeServer, Reply
from tests.unit.commands.support import drive, text_of


def user_command(name: str, text: str) -> Path:
    path = user_commands_dir() / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def project_command(workspace: Path, name: str, text: str) -> Path:
    path = workspace / ".lull" / "commands" / f"{name}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def last_user_text(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(b["text"] for b in content if b.get("type") == "text")


def test_arguments_fill_their_places() -> None:
    assert substitute_arguments("a $ARGUMENTS b", "x y") == "a x y b"
    assert substitute_arguments("$2 then $1, $3.", '"first one" second') == (
        "second then first one, ."
    )
    assert substitute_arguments("$1", "unclosed 'quote") == "unclosed"


async def test_every_substitution_reaches_the_model(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    (workspace / "notes.txt").write_text("the notes say hello")
    user_command(
        "brief",
        "---\ndescription: Brief the model\nallowed-tools: Bash(echo:*), Read\n---\n"
        "Topic: $ARGUMENTS\nFirst: $1, second: $2\nBranch: !`echo on-main`\n"
        "See @notes.txt",
    )
    runtime.agent.tools.mode = "default"
    runtime.agent.set_approver(DenyApprover("nobody to ask"))  # the user's listed command
    fake.script(Reply(text="briefed"))
    result = run_command(runtime, "/brief alpha beta")
    assert not result.error and "Brief the model (user)" in text_of(result)
    events = await drive(result)
    assert any(isinstance(e, TurnFinished) for e in events)
    sent = last_user_text(fake.requests[-1])
    assert "Topic: alpha beta" in sent
    assert "First: alpha, second: beta" in sent
    assert "on-main" in sent and "!`" not in sent
    assert "Contents of notes.txt:" in sent and "the notes say hello" in sent


async def test_arguments_are_appended_when_the_body_has_no_place_for_them(
    runtime: Runtime, fake: FakeServer
) -> None:
    user_command("tidy", "Tidy the code.")
    fake.script(Reply(text="ok"))
    await drive(run_command(runtime, "/tidy only src/"))
    assert last_user_text(fake.requests[-1]).endswith("Tidy the code.\n\nARGUMENTS: only src/")


async def test_an_argument_cannot_add_a_shell_command(runtime: Runtime) -> None:
    text, commands = prompt_template(_command("Say $ARGUMENTS and !`echo $1`"), "!`rm -rf x` there")
    assert commands == ["echo !`rm"]  # the file's own span only, with $1 substituted
    assert "Say !`rm -rf x` there and" in text


def _command(body: str) -> Any:
    from lull.commands.custom import CustomCommand

    return CustomCommand("x", body, Path("x.md"), "user")


async def test_a_project_command_asks_before_its_shell_command(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    project_command(workspace, "status", "---\nallowed-tools: Bash(echo:*)\n---\n!`echo hi`")
    runtime.agent.tools.mode = "default"
    runtime.agent.set_approver(DenyApprover("not now"))
    events = await drive(run_command(runtime, "/status"))
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert notices == ["/status: `echo hi` was not run (you denied it: not now); nothing was sent"]
    assert fake.requests == []

    runtime.agent.set_approver(AllowApprover())
    fake.script(Reply(text="fine"))
    events = await drive(run_command(runtime, "/status"))
    assert any(isinstance(e, ToolFinished) and "hi" in e.result.content for e in events)
    assert "hi" in last_user_text(fake.requests[-1])


async def test_help_lists_custom_commands_and_broken_files(
    runtime: Runtime, workspace: Path
) -> None:
    user_command("review", "---\ndescription: Review it\nargument-hint: [focus]\n---\nReview")
    broken = project_command(workspace, "bad", "---\nmodel: two words\n---\nx")
    project_command(workspace, "frontend/test", "Run the frontend tests")
    text = text_of(run_command(runtime, "/help"))
    assert "/review [focus]" in text and "Review it (user)" in text
    assert "/frontend:test" in text and "Run the frontend tests (project)" in text
    assert f"skipped {broken}:2: model: a model name has no spaces" in text
    assert "/init [NOTES]" in text


async def test_subfolder_commands_and_prefixes_run(
    runtime: Runtime, fake: FakeServer, workspace: Path
) -> None:
    project_command(workspace, "frontend/test", "Run the frontend tests")
    fake.script(Reply(text="ran"), Reply(text="ran again"))
    await drive(run_command(runtime, "/frontend:test"))
    assert "Run the frontend tests" in last_user_text(fake.requests[-1])
    await drive(run_command(runtime, "/frontend"))  # the only command starting so
    assert len(fake.requests) == 2


async def test_a_command_s_model_answers_its_turn_only(runtime: Runtime, fake: FakeServer) -> None:
    user_command("cheap", "---\nmodel: claude-cheap\n---\nSay hi")
    fake.script(Reply(text="hi"), Reply(text="back"))
    await drive(run_command(runtime, "/cheap"))
    assert fake.requests[-1]["model"] == "claude-cheap"
    events = [e async for e in runtime.agent.run_turn("and now?")]
    assert any(isinstance(e, TurnFinished) for e in events)
    assert fake.requests[-1]["model"] == runtime.provider_config.model


async def test_unknown_names_still_get_a_hint(runtime: Runtime) -> None:
    result = run_command(runtime, "/reviw")
    assert result.error and "unknown command /reviw" in text_of(result)


async def test_a_project_command_linked_to_a_file_outside_is_refused_naming_both(
    runtime: Runtime, fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.md"
    secret.write_text("the deploy key is hunter2")
    link = workspace / ".lull" / "commands" / "leak.md"
    link.parent.mkdir(parents=True)
    link.symlink_to(secret)
    result = run_command(runtime, "/leak")
    assert result.error and result.stream is None
    assert text_of(result) == (
        f"/leak: {link}: skipped: it leads to {secret}, outside the workspace "
        f"{workspace.resolve()}; a project command may read only files inside it until you "
        "/trust this workspace"
    )
    listed = text_of(run_command(runtime, "/help"))
    assert f"skipped {link}: skipped: it leads to {secret}" in listed
    assert fake.requests == []
    trust(workspace)
    fake.script(Reply(text="ok"))
    await drive(run_command(runtime, "/leak"))
    assert "hunter2" in last_user_text(fake.requests[-1])  # the user chose to trust it


async def test_a_project_command_attaches_only_workspace_files(
    runtime: Runtime, fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("root:x:0:0 hunter2")
    (workspace / "notes.txt").write_text("workspace notes")
    (workspace / "linked.txt").symlink_to(secret)
    project_command(workspace, "look", f"Look at @{secret}, @linked.txt and @notes.txt")
    fake.script(Reply(text="looked"))
    events = await drive(run_command(runtime, "/look"))
    sent = last_user_text(fake.requests[-1])
    assert "hunter2" not in sent and "workspace notes" in sent
    warnings = [e.text for e in events if isinstance(e, Notice) and e.level == "warning"]
    ws = workspace.resolve()
    assert warnings == [
        f"@{secret}: not attached: it leads to {secret}, outside the workspace {ws}; a "
        "project file may attach only files inside it until you /trust this workspace",
        f"@linked.txt: not attached: it leads to {secret}, outside the workspace {ws}; a "
        "project file may attach only files inside it until you /trust this workspace",
    ]


async def test_what_the_user_types_and_their_own_commands_attach_as_before(
    runtime: Runtime, fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "mine.txt"
    secret.write_text("the user's own file")
    project_command(workspace, "explain", "Explain $ARGUMENTS")
    user_command("mine", f"Read @{secret}")
    fake.script(Reply(text="one"), Reply(text="two"))
    await drive(run_command(runtime, f"/explain @{secret}"))
    assert "the user's own file" in last_user_text(fake.requests[-1])  # typed by the user
    await drive(run_command(runtime, "/mine"))
    assert "the user's own file" in last_user_text(fake.requests[-1])  # the user's own file


async def test_a_trusted_project_command_attaches_outside_files(
    runtime: Runtime, fake: FakeServer, workspace: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "shared.txt"
    outside.write_text("shared conventions")
    project_command(workspace, "conventions", f"Follow @{outside}")
    trust(workspace)
    fake.script(Reply(text="ok"))
    await drive(run_command(runtime, "/conventions"))
    assert "shared conventions" in last_user_text(fake.requests[-1])
