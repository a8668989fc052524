"""Saved permission rules in the turn loop (scripted provider, real tools and files): a deny
rule refuses in yolo mode and names itself, an allow rule runs without asking, a compound
line is asked about, an ask rule asks in yolo mode, "allow always" saves a rule."""

from __future__ import annotations

from pathlib import Path

from lull.model.approvals import Approval
from lull.model.events import Notice, ToolFinished
from lull.model.messages import ToolCall
from lull.model.permissions import PermissionRule, RuleEffect, SaveScope
from lull.providers.scripted import ScriptedCall, ScriptedProvider, ScriptedReply
from lull.tools.permissions.rules import RuleBook
from tests.support import AgentFactory, run


def shell(command: str) -> ScriptedReply:
    return ScriptedReply(tool_calls=(ScriptedCall("run_shell_command", {"command": command}),))


class Answers:
    """Answers questions from a list and remembers what was asked (with the rules offered)."""

    def __init__(self, *answers: Approval) -> None:
        self.answers = list(answers)
        self.asked: list[tuple[str, tuple[str, ...]]] = []

    async def ask(self, call: ToolCall, summary: str, rules: tuple[str, ...] = ()) -> Approval:
        self.asked.append((summary, rules))
        return self.answers.pop(0) if self.answers else Approval("deny")


def _rules(*rules: tuple[RuleEffect, str]) -> RuleBook:
    return RuleBook([PermissionRule(e, t, "/home/u/.config/lull/settings.json") for e, t in rules])


def _results(events: list[object]) -> list[str]:
    return [e.result.content for e in events if isinstance(e, ToolFinished)]


async def test_a_deny_rule_refuses_even_in_yolo_mode_and_names_itself(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "keep").write_text("x")
    agent = make_agent(mode="yolo")
    agent.tools.rules = _rules(("deny", "run_shell_command(rm *)"))
    provider.script(shell("ls && rm -f keep"), ScriptedReply(text="ok"))
    events = await run(agent, "clean up")
    (result,) = _results(events)
    assert [e.denied for e in events if isinstance(e, ToolFinished)] == [True]
    assert (workspace / "keep").exists()
    assert result.startswith(
        'run_shell_command was not run: the user\'s deny rule "run_shell_command(rm *)" from '
        "/home/u/.config/lull/settings.json denies it."
    )


async def test_an_allow_rule_runs_without_asking_but_not_a_compound_line(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    agent = make_agent(mode="default")
    agent.tools.rules = _rules(("allow", "run_shell_command(echo *)"))
    answers = Answers()
    agent.set_approver(answers)
    provider.script(shell("echo hello"), shell("echo hi; touch pwned"), ScriptedReply(text="ok"))
    first, second = _results(await run(agent, "greet"))
    assert "hello" in first and answers.asked[0][0] == "echo hi; touch pwned"
    assert "denied" in second and not (workspace / "pwned").exists()


async def test_an_ask_rule_asks_in_yolo_mode(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    agent = make_agent(mode="yolo")
    agent.tools.rules = _rules(("ask", "Bash(git push *)"))
    answers = Answers(Approval("deny", "not yet"))
    agent.set_approver(answers)
    provider.script(shell("git push origin main"), ScriptedReply(text="ok"))
    (result,) = _results(await run(agent, "ship it"))
    summary, _ = answers.asked[0]
    assert summary == (
        'git push origin main (asked by the ask rule "Bash(git push *)" from '
        "/home/u/.config/lull/settings.json)"
    )
    assert 'ask rule "Bash(git push *)"' in result and result.endswith("Reason: not yet")


async def test_allow_always_for_the_workspace_saves_the_suggested_rule(
    provider: ScriptedProvider, make_agent: AgentFactory
) -> None:
    saved: list[tuple[str, SaveScope]] = []

    def saver(text: str, scope: SaveScope) -> str:
        saved.append((text, scope))
        return "/config/workspace-permissions.json"

    agent = make_agent(mode="default")
    agent.tools.rules = RuleBook(saver=saver)
    answers = Answers(Approval("allow_always", remember="workspace"))
    agent.set_approver(answers)
    provider.script(shell("echo one"), shell("echo two && echo three"), ScriptedReply(text="ok"))
    events = await run(agent, "count")
    assert answers.asked == [("echo one", ("run_shell_command(echo *)",))]  # asked once only
    assert saved == [("run_shell_command(echo *)", "workspace")]
    notices = [e.text for e in events if isinstance(e, Notice)]
    assert 'saved allow rule "run_shell_command(echo *)" in /config/workspace-permissions.json' in (
        notices
    )
    assert all("Exit code: 0" in r for r in _results(events))


async def test_a_custom_commands_allowed_tools_never_lift_a_deny_or_ask_rule(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    from lull.engine.calls.scope import TurnScope, parse_tool_rule

    (workspace / "keep").write_text("x")
    agent = make_agent(mode="default")
    agent.tools.rules = _rules(("deny", "run_shell_command(rm *)"), ("ask", "Bash(git push*)"))
    answers = Answers(Approval("deny"))
    agent.set_approver(answers)
    scope = TurnScope((parse_tool_rule("Bash"),), "/mine", preapproved=True)
    provider.script(shell("rm -f keep"), shell("git push"), shell("echo ok"), ScriptedReply("."))
    results = _results([e async for e in agent.run_turn("go", scope=scope)])
    assert "rm" in results[0] and (workspace / "keep").exists()  # denied by the rule
    assert len(answers.asked) == 1 and "git push" in answers.asked[0][0]  # asked, then denied
    assert results[2].endswith("stdout:\nok")  # the command's own tool runs unasked


async def test_a_bang_line_obeys_deny_rules(make_agent: AgentFactory, workspace: Path) -> None:
    from lull.engine.calls.user_shell import run_prompt_shell

    (workspace / "keep").write_text("x")
    agent = make_agent(mode="yolo")
    agent.tools.rules = _rules(("deny", "run_shell_command(rm *)"))
    events = [e async for e in run_prompt_shell(agent.session, agent.tools, "rm keep")]
    assert isinstance(events[0], Notice) and "refused by the" in events[0].text
    assert (workspace / "keep").exists() and agent.session.transcript == []


async def test_a_read_deny_keeps_the_file_from_every_tool_in_yolo_mode(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "secret.txt").write_text("TOKEN=sk-live-123\n")
    (workspace / "notes.txt").write_text("TOKEN is read from secret.txt\n")
    agent = make_agent(mode="yolo")
    agent.tools.rules = _rules(("deny", "Read(secret.txt)"))
    provider.script(
        ScriptedReply(tool_calls=(ScriptedCall("grep_search", {"pattern": "TOKEN"}),)),
        ScriptedReply(tool_calls=(ScriptedCall("glob", {"pattern": "*.txt"}),)),
        shell("cat secret.txt"),
        shell("cat sec*"),
        ScriptedReply(text="ok"),
    )
    grep, glob, cat, star = _results(await run(agent, "find the token"))
    assert all("sk-live-123" not in text for text in (grep, glob, cat, star))
    assert "notes.txt:1" in grep and "1 file with matches left out" in grep
    assert glob.startswith("notes.txt\n[1 matching file left out")
    for refused in (cat, star):
        assert refused.startswith("run_shell_command was not run: the user's deny rule")
        assert "(the command reads sec" in refused


async def test_a_computed_command_name_is_asked_about_in_yolo_mode(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    (workspace / "x").mkdir()
    agent = make_agent(mode="yolo")
    agent.tools.rules = _rules(("deny", "run_shell_command(rm -rf *)"))
    answers = Answers(Approval("deny"))
    agent.set_approver(answers)
    provider.script(shell("$(echo rm) -rf x"), shell("/bin/rm -fr x"), ScriptedReply(text="ok"))
    asked, denied = _results(await run(agent, "clean"))
    assert (workspace / "x").is_dir()
    assert "is computed, so the rule cannot be checked" in answers.asked[0][0]
    assert asked.startswith("The user denied this run_shell_command call")
    assert denied.startswith("run_shell_command was not run: the user's deny rule")


async def test_dont_ask_refuses_instead_of_asking_and_runs_what_a_rule_allows(
    provider: ScriptedProvider, make_agent: AgentFactory, workspace: Path
) -> None:
    agent = make_agent(mode="dont-ask")
    agent.tools.rules = _rules(("allow", "Bash(echo *)"), ("ask", "Bash(git push *)"))
    answers = Answers(Approval("allow"))
    agent.set_approver(answers)  # the TUI's or line mode's approver: never asked
    provider.script(
        shell("echo hello"), shell("touch made"), shell("git push"), ScriptedReply(text="ok")
    )
    events = await run(agent, "go")
    echoed, touched, pushed = _results(events)
    assert "hello" in echoed and not (workspace / "made").exists()
    assert "dontAsk permission mode" in touched and "dontAsk permission mode" in pushed
    assert answers.asked == []
    assert [e.denied for e in events if isinstance(e, ToolFinished)] == [False, True, True]
