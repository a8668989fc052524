"""What a project file may set: every key's decided rule, narrowing orders, the words."""

from __future__ import annotations

from pathlib import Path

import pytest

from lull.settings.checks import Choice
from lull.settings.fields import FIELDS, PROJECT_RULES, Field, ProjectRule, get_value
from lull.settings.model import Settings
from lull.settings.trust import Judgement, judge, narrowing_rule, rule_text, where_to_set

# The decisions, key by key: anything that picks where the workspace goes or what it costs is
# the user's alone; limits on access and spending may only be narrowed; the rest shapes what
# the model sees inside the window.
DECIDED: dict[str, ProjectRule] = {
    "model.provider": "no",
    "model.name": "no",
    "model.baseUrl": "no",
    "model.vendor": "no",
    "context.compression.model": "no",
    "context.cache.enabled": "no",
    "context.cache.ttl": "no",
    "context.cache.promptCacheKey": "no",
    "pricing": "no",
    "tools.approvalMode": "narrow",
    "tools.allowedPaths": "narrow",
    "maxTurns": "narrow",
    "model.contextWindow": "narrow",
    "model.maxOutputTokens": "narrow",
    "model.thinking": "yes",
    "tools.maxOutputChars": "yes",
    "tools.shellTimeoutSeconds": "yes",
    "context.clearContextOnIdle.thinkingThresholdMinutes": "yes",
    "context.clearContextOnIdle.toolResultsThresholdMinutes": "yes",
    "context.clearContextOnIdle.toolResultsNumToKeep": "yes",
    "context.clearContextOnIdle.compactableTools": "yes",
    "context.compression.threshold": "yes",
    "context.compression.keepRecentFraction": "yes",
    "context.toolOutput.maxTokens": "yes",
    "permissions.allow": "adds",
    "permissions.ask": "adds",
    "permissions.deny": "adds",
}


@pytest.mark.parametrize(("key", "rule"), DECIDED.items())
def test_each_key_has_its_decided_rule(key: str, rule: ProjectRule) -> None:
    assert FIELDS[key].project == rule


def test_a_new_key_is_user_only_until_someone_decides() -> None:
    assert Field("x.y", Choice(("a",)), "A new key.").project == "no"
    assert {field.project for field in FIELDS.values()} <= set(PROJECT_RULES)


@pytest.mark.parametrize("key", [k for k, f in FIELDS.items() if f.project == "narrow"])
def test_every_narrow_key_has_an_order_and_its_default_narrows_to_itself(key: str) -> None:
    spec = FIELDS[key]
    assert narrowing_rule(spec)
    default = get_value(Settings(), key)
    assert judge(spec, default, default) == Judgement("accepted", default)
    if isinstance(spec.check, Choice):
        assert sorted(spec.narrowest_first) == sorted(spec.check.values)


def test_approval_modes_from_narrowest_to_widest() -> None:
    spec = FIELDS["tools.approvalMode"]
    order = ("plan", "default", "auto-edit", "yolo")
    for i, standing in enumerate(order):
        for j, asked in enumerate(order):
            assert (judge(spec, asked, standing).outcome == "accepted") == (j <= i)


def test_numbers_narrow_downwards_and_null_means_the_built_in_limit() -> None:
    turns, window, output = (FIELDS[k] for k in ("maxTurns", "model.contextWindow",
                                                  "model.maxOutputTokens"))  # fmt: skip
    assert judge(turns, 10, 10).outcome == "accepted"
    assert judge(turns, 11, 10).outcome == "refused"
    assert judge(window, 10**9, None).outcome == "accepted"  # the user set no limit
    assert judge(window, None, 1000).outcome == "refused"  # null lifts the user's limit
    assert judge(output, 8192, None).outcome == "accepted"
    assert judge(output, 8193, None).outcome == "refused"
    assert judge(output, None, 4000).outcome == "refused"
    assert judge(output, None, 9000).outcome == "accepted"


def test_paths_narrow_by_containment_after_resolving(tmp_path: Path) -> None:
    spec = FIELDS["tools.allowedPaths"]
    (tmp_path / "a" / "b").mkdir(parents=True)
    standing = (str(tmp_path / "a"),)
    inside = str(tmp_path / "a" / "b")
    dotted = str(tmp_path / "a" / ".." / "c")
    judged = judge(spec, (inside, dotted, str(tmp_path)), standing)
    assert judged == Judgement("narrowed", (inside,), (dotted, str(tmp_path)))
    assert judge(spec, (inside,), ()).outcome == "narrowed"  # the user allowed nothing


def test_user_only_keys_are_refused_whatever_the_value() -> None:
    assert judge(FIELDS["pricing"], (), ()).outcome == "refused"
    assert judge(FIELDS["model.name"], None, None).outcome == "refused"


def test_words_for_the_readme_and_messages(home_config: Path) -> None:
    assert rule_text(FIELDS["model.thinking"]) == "yes"
    assert rule_text(FIELDS["pricing"]) == "no (user only)"
    assert rule_text(FIELDS["tools.approvalMode"]) == (
        "narrow (stricter only: plan < dont-ask < default < auto-edit < yolo)"
    )
    assert rule_text(FIELDS["model.maxOutputTokens"]) == (
        "narrow (lower only; null counts as 8192)"
    )
    user = home_config / "lull" / "settings.json"
    assert where_to_set(FIELDS["pricing"]) == f"your user settings ({user})"
    assert where_to_set(FIELDS["model.name"]) == (
        f"your user settings ({user}), with LULL_MODEL or with --model"
    )


@pytest.fixture
def home_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private XDG config directory."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"
