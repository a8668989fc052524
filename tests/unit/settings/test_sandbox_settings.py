"""The ``sandbox`` keys: Claude Code's shape, and a project file may only turn the sandbox on
or narrow it, never turn it off or widen it."""

from __future__ import annotations

from tests.unit.settings.conftest import Home


def test_the_keys_load_in_claude_codes_shape(home: Home) -> None:
    home.write_user(
        {
            "sandbox": {
                "enabled": True,
                "autoAllowBashIfSandboxed": False,
                "excludedCommands": ["docker"],
                "allowUnsandboxedCommands": False,
                "failIfUnavailable": True,
                "network": {"allowedDomains": ["pypi.org", "*.github.com"]},
                "filesystem": {"allowWrite": ["~/.cache"], "denyRead": ["~/secrets"]},
            }
        }
    )
    sandbox = home.load().settings.sandbox
    assert sandbox.enabled and sandbox.fail_if_unavailable
    assert not sandbox.auto_allow_bash_if_sandboxed and not sandbox.allow_unsandboxed_commands
    assert sandbox.excluded_commands == ("docker",)
    assert sandbox.network.allowed_domains == ("pypi.org", "*.github.com")
    assert sandbox.filesystem.allow_write == ("~/.cache",)
    assert sandbox.filesystem.deny_read == ("~/secrets",)


def test_a_project_may_turn_the_sandbox_on(home: Home) -> None:
    home.write_project({"sandbox": {"enabled": True, "failIfUnavailable": True}})
    sandbox = home.load().settings.sandbox
    assert sandbox.enabled and sandbox.fail_if_unavailable


def test_a_project_cannot_turn_the_sandbox_off(home: Home) -> None:
    home.write_user({"sandbox": {"enabled": True}})
    home.write_project({"sandbox": {"enabled": False}})
    loaded = home.load()
    assert loaded.settings.sandbox.enabled
    assert any("sandbox.enabled = false is ignored" in d.message for d in loaded.diagnostics)


def test_a_project_cannot_widen_what_the_sandbox_allows(home: Home) -> None:
    outside = home.workspace.parent / "outside"
    home.write_user(
        {"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": False,
                     "allowUnsandboxedCommands": False,
                     "network": {"allowedDomains": ["pypi.org"]}}}
    )  # fmt: skip
    home.write_project(
        {
            "sandbox": {
                "autoAllowBashIfSandboxed": True,
                "allowUnsandboxedCommands": True,
                "excludedCommands": ["rm"],
                "network": {"allowedDomains": ["pypi.org", "evil.example"]},
                "filesystem": {"allowWrite": [str(outside)], "denyRead": ["~/notes"]},
            }
        }
    )
    sandbox = home.load().settings.sandbox
    assert not sandbox.auto_allow_bash_if_sandboxed
    assert not sandbox.allow_unsandboxed_commands
    assert sandbox.excluded_commands == ()
    assert sandbox.network.allowed_domains == ("pypi.org",)
    assert sandbox.filesystem.allow_write == ()
    assert sandbox.filesystem.deny_read == ("~/notes",)  # more hidden is narrower


def test_a_project_cannot_add_sockets_local_binding_or_readable_paths(home: Home) -> None:
    home.write_user(
        {"sandbox": {"network": {"allowUnixSockets": ["/run/user/1000/ssh"]},
                     "filesystem": {"allowRead": ["~/.ssh/known_hosts"]}}}
    )  # fmt: skip
    home.write_project(
        {
            "sandbox": {
                "network": {
                    "allowUnixSockets": ["/run/user/1000/ssh/agent.sock", "/run/docker.sock"],
                    "allowLocalBinding": True,
                },
                "filesystem": {"allowRead": ["~/.ssh/known_hosts", "~/.ssh/id_rsa"]},
            }
        }
    )
    loaded = home.load()
    network = loaded.settings.sandbox.network
    assert network.allow_unix_sockets == ("/run/user/1000/ssh/agent.sock",)  # inside the user's
    assert not network.allow_local_binding
    assert loaded.settings.sandbox.filesystem.allow_read == ("~/.ssh/known_hosts",)
    ignored = " ".join(d.message for d in loaded.diagnostics)
    assert "sandbox.network.allowLocalBinding" in ignored
    assert "/run/docker.sock" in ignored and "~/.ssh/id_rsa" in ignored


def test_local_binding_is_the_users_to_turn_on_and_a_projects_to_turn_off(home: Home) -> None:
    home.write_user({"sandbox": {"network": {"allowLocalBinding": True}}})
    assert home.load().settings.sandbox.network.allow_local_binding
    home.write_project({"sandbox": {"network": {"allowLocalBinding": False}}})  # narrower
    assert not home.load().settings.sandbox.network.allow_local_binding
