"""REFERENCE §2: ``tools.tool_search`` keys, defaults, ranges, clamps, aliases, fallbacks."""

from __future__ import annotations

import dataclasses
import logging
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st
from reference_impl import ref_config

from toolsearch.config import SEED_DEFAULTS, ToolSearchConfig, parse_tristate, read_as_note
from toolsearch.profiles import get_profile

SEED_DEFAULT_VALUES = {
    "enabled": "auto",
    "threshold_pct": 5.0,
    "search_default_limit": 5,
    "max_search_limit": 20,
    "listing": "auto",
    "listing_max_tokens": 4000,
}


def values(config: ToolSearchConfig) -> dict[str, object]:
    return {key: getattr(config, key) for key in SEED_DEFAULT_VALUES}


# --------------------------------------------------------------------------- defaults


def test_dataclass_defaults_are_the_seed_defaults():
    assert values(ToolSearchConfig()) == SEED_DEFAULT_VALUES
    assert ToolSearchConfig().profile is get_profile("seed")


def test_empty_dict_gives_every_default():
    config = ToolSearchConfig.from_raw({})
    assert values(config) == SEED_DEFAULT_VALUES
    assert isinstance(config.threshold_pct, float)


def test_seed_defaults_table_matches_the_seed_article():
    assert SEED_DEFAULTS == SEED_DEFAULT_VALUES


def test_seed_profile_has_no_defer_list():
    config = ToolSearchConfig.from_raw({"defer": ["clarify"]})
    assert config.defer is None
    assert config.effective_defer_tools is None


def test_config_is_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        ToolSearchConfig().enabled = "off"  # type: ignore[misc]


# --------------------------------------------------------------------------- tri-state


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("auto", "auto"), ("on", "on"), ("off", "off"),
        ("AUTO", "auto"), (" On ", "on"), ("\tOFF\n", "off"),
        ("true", "on"), ("True", "on"), ("TRUE", "on"), ("1", "on"), ("yes", "on"), ("Yes", "on"),
        ("false", "off"), ("False", "off"), ("0", "off"), ("no", "off"), ("NO", "off"),
        (True, "on"), (False, "off"), (1, "on"), (0, "off"),
        (None, "auto"), ("", "auto"), ("enabled", "auto"), ("y", "auto"), ("n", "auto"),
        ("maybe", "auto"), (2, "auto"), (1.0, "auto"), ([], "auto"), ({}, "auto"),
    ],
)
def test_parse_tristate(raw, expected):
    assert parse_tristate(raw) == expected


@pytest.mark.parametrize("key", ["enabled", "listing"])
@pytest.mark.parametrize(
    ("raw", "expected"),
    [(True, "on"), (False, "off"), ("on", "on"), ("off", "off"), ("auto", "auto"),
     ("yes", "on"), ("no", "off"), (1, "on"), (0, "off"), (None, "auto"), ("bogus", "auto")],
)
def test_tristate_keys_inside_the_dict(key, raw, expected):
    # A YAML boolean inside the dict: str(True) == "True" -> "true" -> on.
    assert getattr(ToolSearchConfig.from_raw({key: raw}), key) == expected


def test_enabled_true_in_dict_is_on_but_bare_true_is_auto():
    assert ToolSearchConfig.from_raw({"enabled": True}).enabled == "on"
    assert ToolSearchConfig.from_raw(True).enabled == "auto"


def test_auto_is_kept_as_auto():
    # "auto" is an exact alias of "on" in behaviour, but it is stored as "auto".
    assert ToolSearchConfig.from_raw({"enabled": "auto", "listing": "auto"}).enabled == "auto"


# --------------------------------------------------------------------------- non-dicts


@pytest.mark.parametrize(
    ("raw", "enabled"),
    [(True, "auto"), (False, "off"), (None, "auto"), ("off", "auto"), ("on", "auto"),
     (0, "auto"), (1, "auto"), ([], "auto"), (["enabled"], "auto"), (3.5, "auto"),
     (object(), "auto")],
)
def test_non_dict_raw_gives_defaults_with_enabled(raw, enabled):
    config = ToolSearchConfig.from_raw(raw)
    assert values(config) == {**SEED_DEFAULT_VALUES, "enabled": enabled}


def test_legacy_shape_true_equals_enabled_auto():
    assert ToolSearchConfig.from_raw(True) == ToolSearchConfig.from_raw({"enabled": "auto"})


def test_no_argument_is_defaults():
    assert values(ToolSearchConfig.from_raw()) == SEED_DEFAULT_VALUES


# --------------------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (5, 5.0), (7.5, 7.5), ("7.5", 7.5), (" 12 ", 12.0), (0, 0.0), (100, 100.0),
        (-1, 0.0), (-0.5, 0.0), (100.5, 100.0), (1e9, 100.0), ("abc", 5.0), (None, 5.0),
        ([], 5.0), ({}, 5.0), ("", 5.0), (True, 1.0), (float("inf"), 100.0),
        (float("-inf"), 0.0), ("nan", 5.0), (float("nan"), 5.0),
    ],
)
def test_threshold_pct_parse_and_clamp(raw, expected):
    config = ToolSearchConfig.from_raw({"threshold_pct": raw})
    assert config.threshold_pct == expected
    assert isinstance(config.threshold_pct, float)


INT_CASES_MAX = [
    (20, 20), ("7", 7), (7.9, 7), (-3, 1), (0, 1), (1, 1), (50, 50), (51, 50), (10**9, 50),
    (None, 20), ("abc", 20), ("7.9", 20), ([], 20), ("", 20), (True, 1), (float("inf"), 20),
]


@pytest.mark.parametrize(("raw", "expected"), INT_CASES_MAX)
def test_max_search_limit_parse_and_clamp(raw, expected):
    config = ToolSearchConfig.from_raw({"max_search_limit": raw})
    assert config.max_search_limit == expected
    assert type(config.max_search_limit) is int


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(5, 5), ("7", 7), (7.9, 7), (0, 1), (-10, 1), (20, 20), (21, 20), (50, 20), (None, 5),
     ("abc", 5), ("", 5), ([], 5)],
)
def test_search_default_limit_parse_and_clamp_to_default_max(raw, expected):
    config = ToolSearchConfig.from_raw({"search_default_limit": raw})
    assert config.search_default_limit == expected
    assert type(config.search_default_limit) is int


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (4000, 4000), ("7000", 7000), (7000.9, 7000), (199, 200), (200, 200), (0, 200),
        (-5, 200), (60000, 60000), (60001, 60000), (10**12, 60000), (None, 4000),
        ("abc", 4000), ("", 4000), ([], 4000), ("4000.0", 4000),
    ],
)
def test_listing_max_tokens_parse_and_clamp(raw, expected):
    config = ToolSearchConfig.from_raw({"listing_max_tokens": raw})
    assert config.listing_max_tokens == expected
    assert type(config.listing_max_tokens) is int


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ({"max_search_limit": 3, "search_default_limit": 10}, (3, 3)),
        ({"max_search_limit": 10, "search_default_limit": 3}, (3, 10)),
        ({"max_search_limit": 0, "search_default_limit": 5}, (1, 1)),
        ({"max_search_limit": "abc", "search_default_limit": 30}, (20, 20)),
        ({"max_search_limit": 99, "search_default_limit": 99}, (50, 50)),
        ({"max_search_limit": 50, "search_default_limit": 49}, (49, 50)),
        ({"search_default_limit": 25}, (20, 20)),
    ],
)
def test_max_search_limit_parsed_first_and_default_clamped_to_it(raw, expected):
    config = ToolSearchConfig.from_raw(raw)
    assert (config.search_default_limit, config.max_search_limit) == expected


def test_unknown_keys_are_ignored():
    config = ToolSearchConfig.from_raw({"bogus": 1, "enabled": "off"})
    assert config.enabled == "off"


def test_from_raw_accepts_any_mapping():
    from types import MappingProxyType

    config = ToolSearchConfig.from_raw(MappingProxyType({"listing": "off"}))
    assert config.listing == "off"


def test_no_warning_is_logged_for_bad_seed_values(caplog):
    with caplog.at_level(logging.DEBUG):
        ToolSearchConfig.from_raw({"threshold_pct": "abc", "listing_max_tokens": [],
                                   "defer": "clarify"})
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_with_values_reparses_and_clamps_again():
    config = ToolSearchConfig().with_values(threshold_pct=150, listing_max_tokens=5)
    assert (config.threshold_pct, config.listing_max_tokens) == (100.0, 200)
    config = ToolSearchConfig().with_values(max_search_limit=2)
    assert (config.search_default_limit, config.max_search_limit) == (2, 2)


def test_to_raw_roundtrips():
    config = ToolSearchConfig.from_raw({"enabled": "on", "threshold_pct": 7.5,
                                        "max_search_limit": 9, "search_default_limit": 4,
                                        "listing": "off", "listing_max_tokens": 999})
    assert ToolSearchConfig.from_raw(config.to_raw()) == config


# --------------------------------------------------------------------------- properties

ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12), st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
    st.sampled_from(["on", "off", "auto", "yes", "no", "1", "0", " 7 ", "7.9", "1e3", "-4"]),
)
KEYS = st.sampled_from(list(SEED_DEFAULT_VALUES) + ["defer", "other"])
RAW = st.one_of(ANY_VALUE, st.dictionaries(KEYS, ANY_VALUE, max_size=8))


def assert_in_range(config: ToolSearchConfig) -> None:
    assert config.enabled in ("auto", "on", "off")
    assert config.listing in ("auto", "on", "off")
    assert isinstance(config.threshold_pct, float)
    assert 0.0 <= config.threshold_pct <= 100.0 and not math.isnan(config.threshold_pct)
    assert type(config.max_search_limit) is int and 1 <= config.max_search_limit <= 50
    assert type(config.search_default_limit) is int
    assert 1 <= config.search_default_limit <= config.max_search_limit
    assert type(config.listing_max_tokens) is int
    assert 200 <= config.listing_max_tokens <= 60000


@given(RAW)
def test_any_input_never_raises_and_stays_in_range(raw):
    assert_in_range(ToolSearchConfig.from_raw(raw))


@given(RAW)
def test_from_raw_agrees_with_the_reference_parse(raw):
    assert values(ToolSearchConfig.from_raw(raw)) == ref_config(raw)


@given(ANY_VALUE, ANY_VALUE)
def test_swapping_the_two_limits_never_yields_an_illegal_pair(a, b):
    for raw in ({"search_default_limit": a, "max_search_limit": b},
                {"search_default_limit": b, "max_search_limit": a}):
        config = ToolSearchConfig.from_raw(raw)
        assert 1 <= config.search_default_limit <= config.max_search_limit <= 50


@given(st.integers(), st.integers())
def test_integer_limits_clamp_exactly(default_limit, max_limit):
    config = ToolSearchConfig.from_raw({"search_default_limit": default_limit,
                                        "max_search_limit": max_limit})
    expected_max = max(1, min(50, max_limit))
    assert config.max_search_limit == expected_max
    assert config.search_default_limit == max(1, min(expected_max, default_limit))


@given(st.floats(allow_nan=False))
def test_threshold_clamps_exactly(value):
    assert ToolSearchConfig.from_raw({"threshold_pct": value}).threshold_pct == \
        max(0.0, min(100.0, value))


@given(st.integers())
def test_listing_max_tokens_clamps_exactly(value):
    assert ToolSearchConfig.from_raw({"listing_max_tokens": value}).listing_max_tokens == \
        max(200, min(60000, value))


@pytest.mark.parametrize(("key", "given", "note"), [
    ("threshold_pct", "abc", "threshold_pct='abc' is not a number: read as the default 5"),
    ("threshold_pct", float("nan"), "threshold_pct=nan is not a number: read as the default 5"),
    ("threshold_pct", 500, "threshold_pct=500 is outside 0-100: clamped to 100"),
    ("listing_max_tokens", -5, "listing_max_tokens=-5 is outside 200-60,000: clamped to 200"),
    ("listing_max_tokens", "1e9",
     "listing_max_tokens='1e9' is not a whole number: read as the default 4000"),
    ("listing_max_tokens", 4000.7, "listing_max_tokens=4000.7 is read as 4000"),
    ("listing_max_tokens", True,
     "listing_max_tokens=True is read as 1, which is outside 200-60,000: clamped to 200"),
    ("search_default_limit", 100,
     "search_default_limit=100 is outside 1-20 (max_search_limit): clamped to 20"),
    ("enabled", "maybe", "enabled='maybe' is not auto, on or off: read as auto"),
    ("threshold_pct", 7.5, ""), ("listing_max_tokens", 34000, ""), ("enabled", "yes", ""),
    ("listing", "off", ""), ("defer", ["a"], ""),
])
def test_read_as_note_says_what_hermes_made_of_a_value(key: str, given: object,
                                                       note: str) -> None:
    config = ToolSearchConfig.from_raw({key: given})
    assert read_as_note(key, given, config) == note


def test_an_integer_too_large_for_a_float_is_clamped_not_a_crash() -> None:
    """`threshold_pct: 999...` (400 digits) raised OverflowError out of every command that
    read the config; it is now as large as a float goes, so clamped to 100 (and 0 below)."""
    assert ToolSearchConfig.from_raw({"threshold_pct": 10**400}).threshold_pct == 100.0
    assert ToolSearchConfig.from_raw({"threshold_pct": -10**400}).threshold_pct == 0.0
