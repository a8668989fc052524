"""The :class:`Runtime`: a ready agent, what it was built from, and the only ways to switch
its session or model."""

from __future__ import annotations

import asyncio
import dataclasses
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from lull.catalog.cache_policy import CacheSetup, ttl_warnings
from lull.catalog.local_servers import is_local_url
from lull.catalog.pricing import cost_by_model
from lull.catalog.server_tools import server_web_search
from lull.catalog.vision import accepts_images
from lull.catalog.windows import context_window_for
from lull.engine.checkpoints.rewind import rewind_conversation
from lull.engine.loop.agent import Agent
from lull.engine.loop.config import AgentConfig
from lull.engine.sessions.load import SessionNotFound, load_notes
from lull.engine.sessions.session import Session
from lull.engine.sessions.store import SessionStorageError, SessionStore
from lull.engine.sessions.writer import SessionLocked
from lull.model.events import Notice
from lull.model.hooks import SessionEndReason
from lull.model.messages import Message
from lull.model.provider import Provider
from lull.providers.config import (
    ProviderConfig,
    create_provider,
)
from lull.providers.sdk import without_collections
from lull.runtime.options import SwitchError, locked_message
from lull.runtime.session_end import SessionEndings
from lull.runtime.wiring import (
    ProviderFactory,
    allowed_paths,
    explicit_idle_kinds,
    hooks_for_session,
    session_environment,
    summary_provider,
)
from lull.settings.environment import variables_in_force
from lull.settings.loader import LoadedSettings
from lull.settings.model import Settings
from lull.settings.workspaces import TrustCheck

if TYPE_CHECKING:
    from lull.mcp.manager import McpManager


class Runtime:
    """A ready agent, what it was built from, and the ways to switch session or model.

    ``provider_factory`` builds a provider for a config (the official SDKs by default; tests
    and ``--demo`` pass an in-process one). ``start_notes`` are lines for the user about how the
    start-up went (e.g. which model was chosen for them), shown once by the front end.
    """

    def __init__(
        self,
        agent: Agent,
        loaded: LoadedSettings,
        provider_config: ProviderConfig,
        store: SessionStore,
        *,
        resumed: bool = False,
        forked: bool = False,
        provider_factory: ProviderFactory = create_provider,
        start_notes: tuple[str, ...] = (),
        mcp: McpManager | None = None,
        trust: TrustCheck | None = None,
    ) -> None:
        self._agent = agent
        self._forked = forked
        self.loaded = loaded
        self._provider_config = provider_config
        self.store = store
        self._resumed = resumed
        self._provider_factory = provider_factory
        self.start_notes = start_notes
        self._closing: set[asyncio.Task[None]] = set()
        self._unsaved: str | None = None
        self._endings = SessionEndings()
        self.mcp = mcp
        self.trust = trust

    # --- what front ends read ---------------------------------------------------------------

    @property
    def agent(self) -> Agent:
        """The agent turns run on (replaced by a session or model switch)."""
        return self._agent

    @property
    def provider_config(self) -> ProviderConfig:
        """The endpoint and model requests go to now."""
        return self._provider_config

    @property
    def resumed(self) -> bool:
        """Whether the current session was resumed (not started empty)."""
        return self._resumed

    @property
    def settings(self) -> Settings:
        """The effective settings (read afresh: ``loaded`` may change while running)."""
        return self.loaded.settings

    @property
    def workspace(self) -> Path:
        """The directory tools work in."""
        return self._agent.tools.context.workspace

    def session_notes(self) -> list[str]:
        """What opening the session had to say: a fork made, lines skipped, history repaired."""
        session = self._agent.session
        notes = load_notes(session.record, session.path)
        if self._forked:
            notes.insert(
                0,
                f"continuing in a copy of session {session.record.forked_from}: {session.id} "
                "(the original is unchanged)",
            )
        return notes

    def context_window(self) -> int:
        """The current model's context window (``model.contextWindow`` wins over the table)."""
        return int(
            context_window_for(self._provider_config.model, self.settings.model.context_window)
        )

    def image_refusal(self) -> str | None:
        """Why images cannot go to the current model (None: they can)."""
        model = self._provider_config.model
        if self._provider_config.provider == "scripted" or accepts_images(model):
            return None
        return f"{model} does not accept images (switch with /model to one that does)"

    def local_endpoint(self) -> bool:
        """Whether requests go to this machine or a private network (an unpriced model
        costs $0 there)."""
        config = self._provider_config
        return config.provider != "scripted" and is_local_url(config.effective_base_url)

    def session_cost(self) -> float | None:
        """The session's cost so far in USD, each model's usage at its own prices (None when
        a model's price is unknown)."""
        record = self._agent.session.record
        own = cost_by_model(
            record.usage_by_model, self.settings.pricing, local=self.local_endpoint()
        )
        subagents = self.subagent_cost()
        return None if own is None or subagents is None else own + subagents

    def subagent_cost(self) -> float | None:
        """What the session's sub-agents cost (their usage is kept apart; None when a
        model's price is unknown)."""
        usage = self._agent.session.record.subagent_usage_by_model
        return cost_by_model(usage, self.settings.pricing, local=self.local_endpoint())

    def cache_setup(self) -> CacheSetup:
        """How idle cleanup and the prompt cache are set up (for TTL warnings)."""
        settings = self.settings
        idle = settings.context.clear_context_on_idle
        explicit = explicit_idle_kinds(self.loaded)
        provider = self._provider_config.provider
        return CacheSetup(
            provider=None if provider == "scripted" else provider,
            enabled=settings.context.cache.enabled,
            ttl=settings.context.cache.ttl,
            thinking_minutes=idle.thinking_threshold_minutes,
            tool_results_minutes=idle.tool_results_threshold_minutes,
            thinking_explicit="thinking" in explicit,
            tool_results_explicit="tool_results" in explicit,
        )

    def cache_warnings(self) -> list[str]:
        """Idle thresholds shorter than the prompt-cache lifetime in use (0 included): each
        cleanup would discard a warm cache. Front ends say these once at start."""
        return ttl_warnings(self.cache_setup())

    def rewind_conversation(self, prompt: Message) -> str | None:
        """``/rewind``'s conversation part: the model sees the session as it was before
        ``prompt`` (a recorded context edit); None, or why it was refused."""
        done = rewind_conversation(self._agent.session, prompt)
        return done if isinstance(done, str) else None

    # --- switching ---------------------------------------------------------------------------

    def new_session(self) -> Session:
        """Close the current session and continue in a new, empty one (same model and tools;
        "allow always" answers are forgotten). Raises :class:`SwitchError` when sessions
        cannot be saved (the current one stays)."""
        config = self._provider_config
        try:
            fresh = Session.create(
                self.store, provider=config.provider, model=config.model, clock=self._agent.clock
            )
        except SessionStorageError as error:
            raise SwitchError(str(error)) from error
        self._switch_session(fresh, "clear")
        self._agent.lifecycle.source = "clear"
        self._resumed = False
        return fresh

    def resume(self, session_id: str) -> Session:
        """Close the current session and continue a saved one of this workspace (an id
        prefix is enough); the current session itself is returned unchanged. Raises
        :class:`SwitchError` saying why it cannot."""
        try:
            path = self.store.find(session_id)
        except SessionNotFound as error:
            raise SwitchError(str(error)) from error
        if path.stem == self._agent.session.id:
            return self._agent.session
        if path.parent != self.store.dir:
            raise SwitchError(
                f"session {path.stem} belongs to another workspace; "
                f"run `lull -C DIR --resume {path.stem}` there"
            )
        try:
            with without_collections():  # the history's objects live on: no walks over them
                session = Session.resume(self.store, path)
        except SessionLocked as error:
            raise SwitchError(locked_message(error)) from error
        except (OSError, SessionNotFound, SessionStorageError) as error:
            raise SwitchError(f"cannot resume {path.stem}: {error}") from error
        self._switch_session(session, "resume")
        self._resumed = True
        return session

    def use_model(self, name: str) -> None:
        """Send the next requests to model ``name`` (same session, same provider settings;
        the current model: nothing changes). Raises :class:`SwitchError` for a name that
        cannot be a model."""
        name = name.strip()
        if not name or len(name.split()) > 1:
            raise SwitchError(f"a model name has no spaces (got {name!r}); usage: /model NAME")
        if name == self._provider_config.model:
            return
        config = dataclasses.replace(self._provider_config, model=name)
        old = self._agent
        old.tools.images_allowed = accepts_images(name)
        provider, summary = self._provider_factory(config), self._summary_provider(config)
        self._agent = self._rebuild(old.session, provider, summary, old.config)
        self._agent.request_hooks = old.request_hooks  # one detector sees the switch
        self._provider_config = config
        self._close_later(old.provider)
        self._search_follows(config)

    def _search_follows(self, config: ProviderConfig) -> None:
        """Anthropic's server-side search runs on the session's model: after ``/model``, on
        the new one when it has the server tool (else on the one before, which has it)."""
        from lull.providers.anthropic_search import AnthropicServerSearch

        backend = getattr(self._agent.tools.registry.get("web_search"), "backend", None)
        if isinstance(backend, AnthropicServerSearch) and server_web_search(
            config.provider, config.model
        ):
            backend.model = config.model

    def agent_for_turn(self, model: str | None) -> Agent:
        """The agent one turn runs on: the current one, or (a custom command's ``model``) a
        temporary agent on the same session and tools that talks to ``model``; hand it back
        with :meth:`release_agent`."""
        name = (model or "").strip()
        if not name or name == self._provider_config.model:
            return self._agent
        config = dataclasses.replace(self._provider_config, model=name)
        old = self._agent
        agent = self._rebuild(
            old.session, self._provider_factory(config), old.summary_provider, old.config
        )
        agent.request_hooks = old.request_hooks
        return agent

    def release_agent(self, agent: Agent) -> None:
        """A turn on :meth:`agent_for_turn`'s agent is over: close a temporary one."""
        if agent is not self._agent:
            self._close_later(agent.provider)

    @property
    def unsaved_on_switch(self) -> str | None:
        """What the session left by the last switch could not save (one line), if anything."""
        return self._unsaved

    def _switch_session(self, session: Session, reason: SessionEndReason) -> None:
        old = self._agent
        self._endings.later(old, reason)
        self._unsaved = old.session.close()
        old.tools.rules.forget_session()
        environment = session_environment(session, self.workspace)
        config = dataclasses.replace(old.config, environment=environment)
        agent = self._rebuild(session, old.provider, old.summary_provider, config)
        agent.request_hooks = hooks_for_session(session, old.request_hooks)
        agent.tools.registry.deferred.restore(session.loaded_tools)  # its tools, its order
        self._agent = agent

    def _rebuild(
        self,
        session: Session,
        provider: Provider,
        summary_provider: Provider | None,
        config: AgentConfig,
    ) -> Agent:
        """A new agent on ``session`` and ``provider``: fresh per-session engine state (token
        accounting, compression guard); tools (with the front end's approver) and the clock
        carry over."""
        old = self._agent
        return Agent(
            session, provider, old.tools, config, old.clock, summary_provider=summary_provider
        )

    def _summary_provider(self, config: ProviderConfig) -> Provider | None:
        return summary_provider(self.settings, config, self._provider_factory)

    def _close_later(self, provider: Provider) -> None:
        """Release a replaced provider's connections if an event loop runs (else GC does)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        task = loop.create_task(provider.aclose())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    # --- tools that start in the background (MCP servers) ---------------------------------------

    def start_tools(
        self, *, wait: bool = False, on_notice: Callable[[Notice], None] | None = None
    ) -> None:
        """Start the MCP servers in the background on the running event loop (the front end
        calls it once its prompt is up); ``wait`` (``lull -p``) makes the first request wait
        for them, so it offers every tool that could start. ``on_notice`` hears what they
        have to say (a server that did not start) when it happens, not at the next turn."""
        if self.mcp is not None:
            self.mcp.wait = wait
            if on_notice is not None:
                self.mcp.listen(on_notice)
            self.mcp.start()

    async def end_session(self, reason: SessionEndReason) -> list[Notice]:
        """``SessionEnd`` hooks as the front end closes (after those of sessions left by
        ``/clear`` or ``/resume``); what they say for the user."""
        return await self._endings.finish(self._agent, reason)

    async def stop_tools(self) -> None:
        """Stop the MCP servers (before the event loop ends)."""
        if self.mcp is not None:
            await self.mcp.aclose()

    def workspace_trusted(self) -> list[str]:
        """The user trusted the workspace: its project hooks and allow rules apply from now
        on, its project MCP servers start now; returns their names (empty when it names
        none)."""
        self.trust_changed()
        if self.mcp is None:
            return []
        return self.mcp.trust_changed()

    def trust_changed(self) -> None:
        """The trusted list changed (``/trust``, ``/trust revoke``): project hooks and allow
        rules follow it from the next tool call on, and so do its added directories; once
        trusted, a project's ``env`` is set for every process lull starts from now on (a
        revoked trust takes it back at the next start)."""
        if self.trust is None:
            return
        trusted = self.trust.refresh()
        if trusted:  # a project's env, for every process started from now on
            os.environ.update(variables_in_force(self.settings.env, trusted))
        runner = self._agent.tools
        allowed = allowed_paths(self.settings, self.loaded, runner.context.workspace, trusted)
        runner.context = dataclasses.replace(runner.context, allowed_paths=allowed)

    def mcp_notes(self) -> list[str]:
        """What the user should know at start: project MCP servers that wait for /trust."""
        waiting = self.mcp.waiting_for_trust() if self.mcp is not None else []
        if not waiting:
            return []
        names = ", ".join(waiting)
        return [
            f"this workspace's project files name MCP servers ({names}); they run commands from "
            "the repository, so they start only once you trust it: /trust (or "
            "--allow-project-mcp for one run)"
        ]

    # --- the provider's SDK ------------------------------------------------------------------

    def import_sdk(self) -> None:
        """Import the provider's SDK and make its client now, in this thread (the TUI does it
        off the UI thread)."""
        from lull.providers.sdk import import_sdk, prepare_client

        import_sdk(self._provider_config.provider)
        prepare_client(self._agent.provider)

    def preload_sdk(self) -> None:
        """Start importing the provider's SDK and making its client in a background thread
        (line mode, while the user types); a failure is reported by the first request."""
        from lull.providers.sdk import preload_sdk, prepare_client

        provider = self._agent.provider
        preload_sdk(self._provider_config.provider, lambda: prepare_client(provider))

    def close(self) -> str | None:
        """Close the session file (the session stays resumable); returns what could not be
        saved, in one line (None when everything is on disk)."""
        return self._agent.session.close()
