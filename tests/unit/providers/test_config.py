"""Provider configuration: vendor detection, env/explicit precedence, clear errors."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest

from lull.catalog.local_servers import ModelListError
from lull.providers.config import (
    NO_KEY_PLACEHOLDER,
    ConfigError,
    NoModelName,
    ProviderConfig,
    create_provider,
    detect_vendor,
    model_from_server,
    resolve_provider_config,
)
from lull.providers.sdk import LazyClient, Preparable, preload_sdk, prepare_client

ROOT = Path(__file__).resolve().parents[3]


def resolve(env: dict[str, str], **explicit: str | None) -> ProviderConfig:
    values: dict[str, str | None] = {"provider": None, "model": None, "base_url": None}
    values.update(explicit)
    return resolve_provider_config(
        provider=values["provider"],
        model=values["model"],
        base_url=values["base_url"],
        vendor=values.get("vendor"),
        env=env,
    )


@pytest.mark.parametrize(
    ("provider", "base_url", "model", "expected"),
    [
        ("anthropic", None, "claude-sonnet-4-6", "anthropic"),
        ("anthropic", "https://api.deepseek.com/anthropic", "deepseek-chat", "anthropic"),
        ("openai", None, "gpt-5.5", "openai"),
        ("openai", "https://api.openai.com/v1", "gpt-5.5", "openai"),
        ("openai", "https://api.deepseek.com/v1", "deepseek-chat", "deepseek"),
        ("openai", "https://api.deepseek.com", "anything", "deepseek"),
        ("openai", "https://api.moonshot.ai/v1", "kimi-k2-thinking", "kimi"),
        ("openai", "https://api.moonshot.cn/v1", "moonshot-v1-8k", "kimi"),
        ("openai", "https://dashscope-intl.aliyuncs.com/compatible-mode/v1", "x", "qwen"),
        ("openai", "http://localhost:11434/v1", "deepseek-r1:8b", "ollama"),
        ("openai", "http://localhost:8000/v1", "deepseek-ai/DeepSeek-V3.2", "deepseek"),
        ("openai", "https://openrouter.ai/api/v1", "moonshotai/kimi-k2", "kimi"),
        ("openai", "http://gpu-box:8000/v1", "Qwen/Qwen3-Coder-30B", "qwen"),
        ("openai", "http://gpu-box:8000/v1", "llama-3.3-70b", "generic"),
    ],
)
def test_detect_vendor(provider: str, base_url: str | None, model: str, expected: str) -> None:
    assert detect_vendor(provider, base_url, model) == expected


def test_deepseek_legacy_is_never_guessed() -> None:
    assert detect_vendor("openai", "https://api.deepseek.com", "deepseek-reasoner") == "deepseek"


def test_anthropic_key_in_env_picks_anthropic_with_default_model() -> None:
    config = resolve({"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oa"})
    assert config == ProviderConfig("anthropic", "claude-sonnet-4-6", "sk-ant", None, "anthropic")
    assert config.effective_base_url == "https://api.anthropic.com"


def test_auth_token_is_accepted_as_anthropic_key() -> None:
    config = resolve({"ANTHROPIC_AUTH_TOKEN": "tok"})
    assert (config.provider, config.api_key) == ("anthropic", "tok")


def test_openai_key_picks_openai() -> None:
    config = resolve({"OPENAI_API_KEY": "sk-oa"})
    assert config == ProviderConfig("openai", "gpt-5.5", "sk-oa", None, "openai")
    assert config.effective_base_url == "https://api.openai.com/v1"


def test_openai_base_url_alone_allows_a_keyless_local_server() -> None:
    config = resolve({"OPENAI_BASE_URL": "http://localhost:11434/v1/"}, model="qwen3:8b")
    assert config.provider == "openai"
    assert config.base_url == "http://localhost:11434/v1"
    assert config.api_key == NO_KEY_PLACEHOLDER
    assert config.vendor == "ollama"


def test_explicit_values_beat_environment() -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant", "OPENAI_API_KEY": "sk-oa"}
    config = resolve(
        env,
        provider="openai",
        model="deepseek-reasoner",
        base_url="https://api.deepseek.com",
        vendor="deepseek-legacy",
    )
    assert config == ProviderConfig(
        "openai", "deepseek-reasoner", "sk-oa", "https://api.deepseek.com", "deepseek-legacy"
    )


def test_explicit_base_url_beats_env_base_url() -> None:
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://api.deepseek.com"}
    config = resolve(env, base_url="https://api.moonshot.ai/v1")
    assert (config.base_url, config.vendor, config.model) == (
        "https://api.moonshot.ai/v1",
        "kimi",
        "kimi-k2-thinking",
    )


def test_vendor_default_models() -> None:
    env = {"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "https://api.deepseek.com"}
    assert resolve(env).model == "deepseek-chat"


def test_anthropic_base_url_from_env() -> None:
    config = resolve({"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": "http://127.0.0.1:9/"})
    assert config.base_url == "http://127.0.0.1:9"


def test_lull_model_env_is_ignored_here() -> None:
    assert resolve({"OPENAI_API_KEY": "k", "LULL_MODEL": "other"}).model == "gpt-5.5"


def test_nothing_configured_says_what_to_set() -> None:
    with pytest.raises(ConfigError) as info:
        resolve({})
    message = str(info.value)
    assert message.startswith("no model provider configured")
    assert "ANTHROPIC_API_KEY" in message and "OPENAI_API_KEY" in message
    assert "\n" not in message


def test_missing_anthropic_key_names_the_variable() -> None:
    with pytest.raises(ConfigError, match="ANTHROPIC_API_KEY is not set"):
        resolve({"OPENAI_API_KEY": "k"}, provider="anthropic")


def test_missing_openai_key_for_openai_itself() -> None:
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        resolve({}, provider="openai")
    with pytest.raises(ConfigError, match="OPENAI_API_KEY is not set"):
        resolve({}, provider="openai", base_url="https://api.openai.com/v1")


def test_unknown_provider_and_vendor() -> None:
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        resolve({"OPENAI_API_KEY": "k"}, provider="gemini")
    with pytest.raises(ConfigError, match="unknown vendor 'mistral'"):
        resolve({"OPENAI_API_KEY": "k"}, vendor="mistral")


def test_vendor_must_fit_provider() -> None:
    with pytest.raises(ConfigError, match="does not fit provider 'anthropic'"):
        resolve({"ANTHROPIC_API_KEY": "k"}, vendor="deepseek")
    with pytest.raises(ConfigError, match="does not fit provider 'openai'"):
        resolve({"OPENAI_API_KEY": "k"}, vendor="anthropic")


def test_bad_base_url() -> None:
    with pytest.raises(ConfigError, match="base URL 'localhost:8000' is not an http"):
        resolve({"OPENAI_API_KEY": "k"}, base_url="localhost:8000")


def test_local_server_needs_a_model_name() -> None:
    with pytest.raises(ConfigError, match="no model name for the server at http://gpu:8000/v1"):
        resolve({"OPENAI_BASE_URL": "http://gpu:8000/v1"})


def test_create_provider_builds_the_right_class() -> None:
    anthropic = create_provider(resolve({"ANTHROPIC_API_KEY": "k"}))
    openai = create_provider(resolve({"OPENAI_API_KEY": "k"}))
    assert (anthropic.name, anthropic.model) == ("anthropic", "claude-sonnet-4-6")
    assert (openai.name, openai.model) == ("openai", "gpt-5.5")


def test_config_module_imports_no_sdk() -> None:
    code = (
        "import sys, lull.providers.config, lull.providers.errors, lull.providers.anthropic_wire, "
        "lull.providers.openai_wire, lull.providers.anthropic_events, "
        "lull.providers.openai_events, "
        "lull.providers.anthropic, lull.providers.openai, lull.providers.streaming;"
        "heavy = [m for m in ('anthropic', 'openai', 'httpx2') if m in sys.modules];"
        "print(heavy)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[]"


def test_building_a_provider_leaves_the_sdk_import_for_later_or_a_preload() -> None:
    code = (
        "import sys\n"
        "from lull.providers.config import create_provider, resolve_provider_config\n"
        "from lull.providers.sdk import preload_sdk\n"
        "config = resolve_provider_config(provider='anthropic', model=None, base_url=None,\n"
        "    vendor=None, env={'ANTHROPIC_API_KEY': 'k'})\n"
        "create_provider(config)\n"
        "print('anthropic' in sys.modules)\n"
        "preload_sdk('anthropic').join()\n"
        "print('anthropic' in sys.modules, 'openai' in sys.modules)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "True", "False"]


def test_a_preload_can_make_the_client_too_so_the_first_request_finds_it() -> None:
    provider = create_provider(resolve({"ANTHROPIC_API_KEY": "k"}))
    assert isinstance(provider, Preparable) and not provider.client.made
    preload_sdk("anthropic", lambda: prepare_client(provider)).join()
    assert provider.client.made
    prepare_client(object())  # a provider without an SDK client: nothing to do


def test_a_lazy_client_made_from_two_threads_is_made_once() -> None:
    entered, release = threading.Event(), threading.Event()
    made: list[object] = []

    def factory() -> object:
        entered.set()
        release.wait(10)
        made.append(object())
        return made[-1]

    client = LazyClient(factory)
    got: list[object] = []
    first = threading.Thread(target=lambda: got.append(client.get()))
    first.start()
    entered.wait(10)
    second = threading.Thread(target=lambda: got.append(client.get()))
    second.start()
    release.set()
    first.join(10)
    second.join(10)
    assert len(made) == 1 and got == [made[0], made[0]]


@pytest.mark.parametrize("key", ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"])
async def test_a_provider_never_used_closes_without_building_a_client(key: str) -> None:
    provider = create_provider(resolve({key: "k"}))
    assert isinstance(provider, Preparable) and not provider.client.made
    await provider.aclose()
    assert not provider.client.made
    used = create_provider(resolve({key: "k"}))  # the positive control: a client made is closed
    assert isinstance(used, Preparable)
    client = used.client.get()
    assert not client.is_closed()
    await used.aclose()
    assert client.is_closed()


def test_a_compatible_server_without_a_model_says_so_with_its_url_and_key() -> None:
    with pytest.raises(NoModelName) as missing:
        resolve({"OPENAI_BASE_URL": "http://gpu-box:8000/v1", "OPENAI_API_KEY": "sk-1"})
    assert missing.value.base_url == "http://gpu-box:8000/v1"
    assert missing.value.api_key == "sk-1"
    assert "set --model or model.name" in str(missing.value)


def test_the_model_from_a_server_or_why_there_is_none() -> None:
    missing = NoModelName("http://127.0.0.1:8000/v1", NO_KEY_PLACEHOLDER)
    assert model_from_server(missing, lambda url, key: ("only",)) == "only"
    with pytest.raises(ConfigError, match=r"lists no models \(GET http://127.0.0.1:8000/v1/models"):
        model_from_server(missing, lambda url, key: ())
    many = tuple(f"m{i}" for i in range(15))
    with pytest.raises(ConfigError, match=r"serves 15 models: m0, .*, m11 and 3 more; choose"):
        model_from_server(missing, lambda url, key: many)

    def refused(url: str, key: str) -> tuple[str, ...]:
        raise ModelListError("no answer (Connection refused)")

    with pytest.raises(ConfigError) as error:
        model_from_server(missing, refused)
    assert str(error.value).endswith(
        "asking the server (GET http://127.0.0.1:8000/v1/models) failed: "
        "no answer (Connection refused)"
    )


def test_a_claude_code_alias_is_sent_as_the_model_it_stands_for() -> None:
    env = {"ANTHROPIC_API_KEY": "k", "ANTHROPIC_DEFAULT_OPUS_MODEL": "claude-opus-4-6"}
    assert resolve(env, provider="anthropic", model="haiku").model == "claude-haiku-5-5"
    assert resolve(env, provider="anthropic", model="opus").model == "claude-opus-4-6"
    # on an OpenAI-compatible server a name is the server's business
    assert resolve({"OPENAI_API_KEY": "k"}, provider="openai", model="sonnet").model == "sonnet"
