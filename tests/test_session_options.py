"""One list of a session's options, from config options of every shape and the legacy states."""

from __future__ import annotations

from typing import Any

from acp_tui.session.launch.start import NewSessionChoices
from acp_tui.store.options import (
    LEGACY_MODE,
    LEGACY_MODEL,
    by_category,
    cycled,
    remembered_values,
    select_choices,
    session_options,
    valid_value,
)
from acp_tui.store.session import SessionState


def state(**fields: Any) -> SessionState:
    s = SessionState("s1")
    for name, value in fields.items():
        setattr(s, name, value)
    return s


def select(option_id: str, category: str | None, values: list[str], **extra: Any) -> dict[str, Any]:
    option: dict[str, Any] = {
        "id": option_id,
        "name": option_id.title(),
        "type": "select",
        "currentValue": values[0],
        "options": [{"value": v, "name": v.upper()} for v in values],
        **extra,
    }
    if category is not None:
        option["category"] = category
    return option


def test_every_category_in_order_unknown_ones_last_agent_order_within() -> None:
    options = session_options(
        state(
            config_options=[
                select("style", "_vendor_style", ["a"]),
                select("effort", "thought_level", ["low", "high"]),
                select("temp", "model_config", ["t1"]),
                select("plain", None, ["p"]),
                {"id": "yolo", "name": "Yolo", "type": "boolean", "currentValue": False},
                select("model", "model", ["m1"]),
                select("mode", "mode", ["code", "ask"]),
                select("top_p", "model_config", ["t2"]),
            ]
        )
    )
    assert [o.id for o in options] == [
        "mode",
        "model",
        "effort",
        "temp",
        "top_p",
        "style",
        "plain",
        "yolo",
    ]
    assert options[-1].kind == "boolean" and options[-1].current is False
    assert by_category(options, "thought_level") is options[2]


def test_grouped_values_are_flattened_in_v1_and_v2_spelling() -> None:
    raw = [
        {"group": "fast", "name": "Fast", "options": [{"value": "a", "name": "A"}]},
        {"groupId": "deep", "name": "Deep", "options": [{"value": "b"}, {"value": "a"}]},
        {"value": "c", "name": "C", "description": "see"},
        {"value": 3},
        "junk",
    ]
    choices = select_choices(raw)
    assert [(c.value, c.name, c.group) for c in choices] == [
        ("a", "A", "Fast"),
        ("b", "b", "Deep"),
        ("c", "C", None),
    ]
    assert choices[2].description == "see"


def test_what_cannot_be_shown_faithfully_is_left_out() -> None:
    options = session_options(
        state(
            config_options=[
                {"id": "x", "name": "X", "type": "slider", "currentValue": 3},  # unknown type
                {"name": "no id", "type": "select", "options": [{"value": "a"}]},
                select("empty", None, ["a"], options=[]),
                {"id": "b", "name": "B", "type": "boolean", "currentValue": True},
                {"configId": "v2", "name": "V2", "type": "select", "options": [{"value": "z"}]},
            ]
        ),
        booleans=False,
    )
    assert [o.id for o in options] == ["v2"]
    assert options[0].current is None  # not reported: never made up


def test_legacy_modes_and_models_give_way_to_config_options_of_their_category() -> None:
    modes = [{"id": "code", "name": "Code"}, {"id": "ask"}]
    models = {
        "availableModels": [{"modelId": "m1", "name": "One"}, {"modelId": "m2"}],
        "currentModelId": "m2",
    }
    legacy = session_options(
        state(available_modes=modes, current_mode_id="ask", models=models, config_options=[])
    )
    assert [(o.key, o.source, o.current) for o in legacy] == [
        (LEGACY_MODE, "modes", "ask"),
        (LEGACY_MODEL, "models", "m2"),
    ]
    assert [c.name for c in legacy[1].choices] == ["One", "m2"]
    both = session_options(
        state(
            available_modes=modes,
            models=models,
            config_options=[select("mode", "mode", ["code"]), select("model", "model", ["x"])],
        )
    )
    assert [o.key for o in both] == ["config:mode", "config:model"]


def test_cycling_wraps_and_toggles_flip() -> None:
    options = session_options(
        state(
            config_options=[
                select("effort", "thought_level", ["low", "mid", "high"], currentValue="high"),
                {"id": "b", "name": "B", "type": "boolean", "currentValue": True},
                select("unset", "mode", ["a", "b"], currentValue=None),
            ]
        )
    )
    by_id = {o.id: o for o in options}
    assert cycled(by_id["effort"]) == "low"
    assert cycled(by_id["effort"], -1) == "mid"
    assert cycled(by_id["b"]) is False
    assert cycled(by_id["unset"]) == "a"  # no current value: the first one


def test_values_worth_remembering_are_the_valid_reported_ones() -> None:
    options = session_options(
        state(
            config_options=[
                select("effort", "thought_level", ["low", "high"], currentValue="high"),
                select("stale", None, ["a"], currentValue="gone"),
                {"id": "b", "name": "B", "type": "boolean", "currentValue": False},
            ],
            available_modes=[{"id": "code"}],
            current_mode_id="code",
        )
    )
    assert remembered_values(options) == {
        "config:effort": "high",
        "config:b": False,
        LEGACY_MODE: "code",
    }
    effort = options[1]
    assert valid_value(effort, "low") and not valid_value(effort, "medium")
    assert not valid_value(options[-1], "yes") and valid_value(options[-1], True)


def test_the_new_session_preview_shows_remembered_options_and_the_choices() -> None:
    choices = NewSessionChoices(
        defaults={
            "configOptions": [select("effort", "thought_level", ["low", "high"])],
            "models": {"availableModels": [{"modelId": "m1"}, {"modelId": "m2"}]},
        }
    )
    choices.config["effort"] = "high"
    choices.model = "m2"
    preview = session_options(choices.preview())
    assert [(o.key, o.current) for o in preview] == [
        (LEGACY_MODEL, "m2"),  # the model comes before the thinking level
        ("config:effort", "high"),
    ]
    assert choices.take() == (None, {"effort": "high"}, "m2")
    assert choices.take() == (None, {}, None)


def test_the_boolean_capability_is_where_the_schema_puts_it() -> None:
    """``clientCapabilities.session.configOptions.boolean``, walked through the schema's own
    definitions (a renamed field there fails here), and advertised by the client."""
    import json
    from pathlib import Path

    from acp_tui.protocol.capabilities import client_capabilities

    schema = json.loads(
        (Path(__file__).parent / "data" / "acp-schema" / "v1" / "schema.json").read_text()
    )
    defs = schema["$defs"]

    def ref_of(prop: dict[str, Any]) -> str:
        refs = [p["$ref"] for p in prop.get("anyOf", [prop]) if "$ref" in p]
        return str(refs[0]).rsplit("/", 1)[-1]

    session = ref_of(defs["ClientCapabilities"]["properties"]["session"])
    config = ref_of(defs[session]["properties"]["configOptions"])
    assert "boolean" in defs[config]["properties"]
    caps = client_capabilities(
        handlers={}, notifications=set(), updates=set(), abilities={"config_options.boolean"}
    )
    assert caps["session"]["configOptions"] == {"boolean": {}}
