"""The environment of commands started by tools: secrets are withheld."""

from __future__ import annotations

import pytest

from lull.tools.process.environment import (
    is_secret_name,
    is_secret_value,
    tool_environment,
    withheld_names,
)


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "ANTHROPIC_AUTH_TOKEN",
        "ANTHROPIC_BASE_URL",
        "ANTHROPIC_CUSTOM_HEADERS",
        "OPENAI_API_KEY",
        "OPENAI_ORG_ID",
        "DEEPSEEK_API_KEY",
        "GITHUB_TOKEN",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "STRIPE_SECRET",
        "PGPASSWORD",
        "MYSQL_PWD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "npm_config__auth",
        "my_api_key",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize(
    "name",
    ["PATH", "HOME", "PWD", "OLDPWD", "LANG", "TERM", "SSH_AUTH_SOCK", "TOKENIZERS_PARALLELISM"],
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)


def test_passthrough_names_and_patterns_keep_a_variable() -> None:
    base = {"PATH": "/bin", "NPM_TOKEN": "n", "GH_TOKEN": "g", "OPENAI_API_KEY": "o"}
    assert tool_environment((), base) == {"PATH": "/bin"}
    assert tool_environment(("NPM_*", "OPENAI_API_KEY"), base) == {
        "PATH": "/bin",
        "NPM_TOKEN": "n",
        "OPENAI_API_KEY": "o",
    }


@pytest.mark.parametrize(
    "name",
    [
        "PRIVATE_KEY_PEM",
        "SSH_PRIVATE_KEY_B64",
        "GH_PAT",
        "TOKEN",
        "SLACK_WEBHOOK_URL",
        "DB_PASS",
        "NPM_AUTH_TOKEN",
        "AUTH",
        "GITHUB_TOKENS",
        "API_KEYS",
        "SENTRY_DSN",
        "Docker_Password_File",
    ],
)
def test_names_with_a_secret_word_as_a_part_are_secret(name: str) -> None:
    assert is_secret_name(name)


COMMON_HARMLESS = (
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "COLORTERM",
    "PWD",
    "OLDPWD",
    "EDITOR",
    "VISUAL",
    "PAGER",
    "TMPDIR",
    "HOSTNAME",
    "DISPLAY",
    "VIRTUAL_ENV",
    "PYTHONPATH",
    "PYTHONHASHSEED",
    "GOPATH",
    "JAVA_HOME",
    "CARGO_HOME",
    "NODE_ENV",
    "XDG_CONFIG_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_SESSION_ID",
    "DBUS_SESSION_BUS_ADDRESS",
    "XAUTHORITY",
    "SSH_AUTH_SOCK",
    "GPG_TTY",
    "GIT_ASKPASS",
    "GIT_AUTHOR_NAME",
    "KEYBOARD_LAYOUT",
    "TOKENIZERS_PARALLELISM",
    "PATCH_LEVEL",
    "NO_COLOR",
    "http_proxy",
    "HTTPS_PROXY",
)


@pytest.mark.parametrize("name", COMMON_HARMLESS)
def test_common_harmless_names_pass(name: str) -> None:
    assert not is_secret_name(name)


@pytest.mark.parametrize(
    "value",
    [
        "postgres://u:pw@db.example/db",
        "mysql+pymysql://admin:hunter2@127.0.0.1:3306/app",
        "https://user:p%40ss@registry.example/simple/ https://pypi.org/simple/",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END",
        "-----BEGIN CERTIFICATE-----",
    ],
)
def test_values_holding_credentials_are_secret(value: str) -> None:
    assert is_secret_value(value)
    assert tool_environment((), {"ORDINARY_NAME": value, "PATH": "/bin"}) == {"PATH": "/bin"}
    assert tool_environment(("ORDINARY_NAME",), {"ORDINARY_NAME": value}) == {
        "ORDINARY_NAME": value
    }


@pytest.mark.parametrize(
    "value",
    [
        "/usr/local/bin:/usr/bin:/bin",
        "http://proxy.example:3128",
        "ssh://git@github.com/owner/repo",
        "https://example.com/a:b@c",
        "user:pass@host",
        "en_US.UTF-8",
        "",
    ],
)
def test_ordinary_values_pass(value: str) -> None:
    assert not is_secret_value(value)


def test_withheld_names_are_the_ones_commands_do_not_get() -> None:
    base = {"PATH": "/bin", "GH_TOKEN": "x", "DB": "postgres://u:pw@h/db", "NPM_TOKEN": "y"}
    assert withheld_names((), base) == ["DB", "GH_TOKEN", "NPM_TOKEN"]
    assert withheld_names(("NPM_*",), base) == ["DB", "GH_TOKEN"]
