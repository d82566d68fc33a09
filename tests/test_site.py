"""Signed tokens are kept once made or read: kept, they are the very tokens itsdangerous makes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from itsdangerous import URLSafeSerializer

from pbem.site import BadLink, make_token, read_token

SECRET = "a-test-secret-of-some-length-0123456789"
items = st.one_of(st.integers(-(2**62), 2**62), st.text(max_size=24), st.booleans())


@settings(max_examples=300, derandomize=True)
@given(payload=st.lists(items, min_size=1, max_size=4))
def test_a_kept_token_is_the_one_signed_afresh_and_reads_back(payload: list[object]) -> None:
    fresh = URLSafeSerializer(SECRET, salt="pbem.seat").dumps(payload)
    assert make_token(SECRET, "seat", payload) == fresh
    assert make_token(SECRET, "seat", list(payload)) == fresh  # and again, from the cache
    assert read_token(SECRET, "seat", fresh) == payload
    assert read_token(SECRET, "seat", fresh) == payload


def test_true_and_one_sign_apart_and_purposes_do_not_mix() -> None:
    assert make_token(SECRET, "seat", [1, 0, "k"]) != make_token(SECRET, "seat", [True, 0, "k"])
    seat = make_token(SECRET, "seat", [1, 0, "k"])
    assert read_token(SECRET, "seat", seat) == [1, 0, "k"]
    with pytest.raises(BadLink):
        read_token(SECRET, "watch", seat)
    with pytest.raises(BadLink):
        read_token("another-secret-of-some-length-0123456", "seat", seat)


def test_a_payload_read_is_the_callers_own() -> None:
    token = make_token(SECRET, "watch", [7, "key"])
    first = read_token(SECRET, "watch", token)
    first.append("changed")
    assert read_token(SECRET, "watch", token) == [7, "key"]
