"""Running a custom slash command: its body becomes the prompt of one turn.

In the body, ``$ARGUMENTS`` is everything typed after the name and ``$1``…``$9`` its words
(shell quoting respected); with neither in the body, typed arguments are appended as
``ARGUMENTS: …``. ``@path`` attaches the file like a mention in a message (images too; from
an untrusted project's file only files inside the workspace, unless the user typed the
mention in the arguments), and ``!`command``` is replaced by the command's output, run in
the workspace through the approval rules (``app/engine/calls/user_shell.py``): it runs
unasked only from the user's own file whose ``allowed-tools`` lists it; otherwise the user is
asked, and a refusal stops the command before anything is sent. An argument can never add a
``!`command``` of its own. The turn then runs with the file's ``allowed-tools`` as its scope
and, with ``model``, on that model. A skill runs the same way as ``/skill-name``
(:func:`skill_as_command`) when no custom command has its name.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

from lull.commands.base import CommandResult
from lull.commands.custom import CustomCommand
from lull.engine.calls.user_shell import check_user_command, execute_user_command, user_call
from lull.model.events import Event, Notice, ToolFinished, ToolStarted
from lull.tools.base import ToolError
from lull.tools.media.mentions import expand_mentions, mentioned_paths, pasted_image_paths
from lull.tools.skills.tool import SKILL_TOOL, SkillTool

if TYPE_CHECKING:
    from lull.runtime import Runtime

SHELL_SPAN = re.compile(r"!`([^`\n]+)`")
POSITIONAL = re.compile(r"\$([1-9])(?!\d)")
ARGUMENTS = "$ARGUMENTS"
_SLOT = "\x00lull-shell-{}\x00"


def substitute_arguments(text: str, argument: str) -> str:
    """``text`` with ``$ARGUMENTS`` and ``$1``…``$9`` replaced (missing ones by nothing)."""
    try:
        words = shlex.split(argument)
    except ValueError:  # an unclosed quote: plain words then
        words = argument.split()
    text = text.replace(ARGUMENTS, argument.strip())

    def word(match: re.Match[str]) -> str:
        number = int(match.group(1))
        return words[number - 1] if number <= len(words) else ""

    return POSITIONAL.sub(word, text)


def uses_arguments(body: str) -> bool:
    """Whether the body places its arguments itself."""
    return ARGUMENTS in body or POSITIONAL.search(body) is not None


def prompt_template(command: CustomCommand, argument: str) -> tuple[str, list[str]]:
    """The prompt with each ``!`command``` replaced by a slot, and the commands (arguments
    substituted inside them too, so ``!`git log $1``` works)."""
    commands: list[str] = []

    def slot(match: re.Match[str]) -> str:
        commands.append(substitute_arguments(match.group(1), argument).strip())
        return _SLOT.format(len(commands) - 1)

    body = SHELL_SPAN.sub(slot, command.body)
    text = substitute_arguments(body, argument)
    if argument.strip() and not uses_arguments(command.body):
        text = f"{text}\n\nARGUMENTS: {argument.strip()}"
    return text, commands


def skill_as_command(runtime: Runtime, name: str) -> CustomCommand | str | None:
    """``/name`` for the skill ``name``, as Claude Code runs one: its instructions become the
    turn's prompt (with the arguments, like a custom command's body) and its
    ``allowed-tools`` the session's allow rules. None: no such skill; a string: why it
    cannot be loaded."""
    tool = runtime.agent.tools.registry.get(SKILL_TOOL)
    if not isinstance(tool, SkillTool) or name not in tool.skills:
        return None
    skill = tool.skills[name]
    try:
        text = tool.load(skill)
    except ToolError as error:
        return str(error)
    return CustomCommand(
        skill.name,
        text,
        skill.instructions,
        "project" if skill.project else "user",
        description=skill.description,
        confined=skill.project and not runtime.agent.tools.rules.trusted(),
    )


def custom_command(runtime: Runtime, command: CustomCommand, argument: str) -> CommandResult:
    """``/name args`` for a custom command: a stream the front end drives like a turn."""
    line = f"{command.usage}: {command.summary}"
    return CommandResult((line,), stream=_run(runtime, command, argument))


async def _run(runtime: Runtime, command: CustomCommand, argument: str) -> AsyncIterator[Event]:
    text, commands = prompt_template(command, argument)
    typed = [*mentioned_paths(argument), *pasted_image_paths(argument)]
    expansion = expand_mentions(
        text, runtime.workspace, runtime.image_refusal(), confined=command.confined, typed=typed
    )
    for mention in expansion.mentions:
        yield Notice("info" if mention.attached else "warning", mention.note)
    prompt = expansion.prompt
    tools = runtime.agent.tools
    for index, shell in enumerate(commands):
        call = user_call(shell)
        refusal = await check_user_command(
            tools,
            call,
            consented=command.runs_unasked(shell),
            asking=f"{shell}  (for {command.source})",
        )
        if refusal is not None:
            line = f"/{command.name}: `{shell}` was not run ({refusal}); nothing was sent"
            yield Notice("warning", line)
            return
        yield ToolStarted(call, shell)
        result = await execute_user_command(tools, call)
        yield ToolFinished(call, result)
        prompt = prompt.replace(_SLOT.format(index), result.content.strip())
    agent = runtime.agent_for_turn(command.model)
    try:
        async for event in agent.run_turn(prompt, expansion.images, command.turn_scope()):
            yield event
    finally:
        runtime.release_agent(agent)
