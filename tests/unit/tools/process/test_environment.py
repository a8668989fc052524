"""The environment of commands started by tools: secrets are withheld."""

from __future__ import annotations

import pytest

from lull.tools.process.environment import is_secret_name, tool_environment


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
