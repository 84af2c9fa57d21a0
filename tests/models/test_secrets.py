"""The scrubber removes a secret in every form a server may echo it, and the credentials of a URL; property tests over
random secrets and every encoding, searched by an independent decoder (:mod:`tests.models.leak_search`)."""

from __future__ import annotations

import base64
import string
import urllib.parse
from collections.abc import Callable

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from pfungst.models.secrets import Scrubber, spec_without_credentials, url_credentials, without_credentials
from tests.models.leak_search import leaks

KEY = "sk-CANARYq7Zx9Wv2Lm4Tp8Rk"


def _pieces_left(text: str, secret: str = KEY) -> list[str]:
    pieces = {secret[i : i + 6].lower() for i in range(len(secret) - 5)}
    return sorted(piece for piece in pieces if piece in text.lower())


@pytest.mark.parametrize(
    "echo",
    [
        f"Bearer {KEY}",
        KEY.upper(),
        KEY.lower(),
        f"{KEY[:11]} {KEY[11:]}",  # split by a space
        " ".join(KEY),  # a space between every two characters
        "-".join(KEY),  # punctuation between every two characters
        f"Incorrect API key provided: {KEY[:12]}**************{KEY[-4:]}.",  # OpenAI's masked form
        f"{{'received': 'Bearer {KEY[:9]}",  # cut by a length limit
        f"\\u0022{KEY}\\u0022",
    ],
)
def test_every_form_of_an_echoed_key_is_redacted(echo: str) -> None:
    scrubbed = Scrubber([KEY])(f"the server said: {echo} (end)")
    assert _pieces_left(scrubbed) == []
    assert scrubbed.startswith("the server said: ") and scrubbed.endswith(" (end)") and "***" in scrubbed


def test_text_without_the_key_is_left_as_it_is() -> None:
    text = "POST http://127.0.0.1:8000/v1/completions: HTTP 500: overloaded, retry in 3 s"
    assert Scrubber([KEY])(text) == text


def test_short_secrets_are_replaced_only_whole_and_tiny_ones_not_at_all() -> None:
    scrub = Scrubber(["abcd", "xy"])
    assert scrub("abcd abc ABCD xy") == "*** abc *** xy"


def test_url_credentials_are_the_user_the_password_and_secret_query_values() -> None:
    url = "https://me:p%40ss@host.test:8443/v1?api_key=k3y&token=t0k&n=2"
    assert set(url_credentials(url)) == {"me", "p%40ss", "p@ss", "k3y", "t0k"}
    assert without_credentials(url) == "https://host.test:8443/v1?api_key=***&token=***&n=2"


def test_a_url_without_credentials_is_unchanged() -> None:
    assert without_credentials("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert url_credentials("http://127.0.0.1:8000/v1") == ()


def test_a_model_spec_is_shown_without_the_credentials_of_its_url() -> None:
    assert spec_without_credentials(f"openai:http://u:{KEY}@127.0.0.1:9#m") == "openai:http://127.0.0.1:9#m"
    assert spec_without_credentials("smollm2") == "smollm2"


# -- every encoding, over random secrets (hypothesis) ----------------------------------------------------------------

SECRET_CHARS = string.ascii_letters + string.digits + "-_.:@/+=!~"
AROUND = st.text(alphabet=" ,;?äöüÄÖÜß\n", max_size=20)  # shares no character with a secret or its encodings
RUNS = settings(max_examples=150, deadline=None)


def _b64(prefix: bytes, urlsafe: bool) -> Callable[[str], str]:
    encode = base64.urlsafe_b64encode if urlsafe else base64.b64encode
    return lambda secret: encode(prefix + secret.encode() + b"?!").decode()


ENCODINGS: dict[str, Callable[[str], str]] = {
    "plain": lambda s: s,
    "upper": str.upper,
    "swapped case": str.swapcase,
    "reversed": lambda s: s[::-1],
    "reversed upper": lambda s: s[::-1].upper(),
    "hex": lambda s: s.encode().hex(),
    "HEX": lambda s: s.encode().hex().upper(),
    "percent": lambda s: urllib.parse.quote(s, safe=""),
    "percent, every byte": lambda s: "".join(f"%{b:02x}" for b in s.encode()),
    "full-width": lambda s: "".join(chr(ord(c) + 0xFEE0) for c in s),
    "zero-width": "\u200b".join,
    "word joiner and soft hyphen": lambda s: "\u2060\u00ad".join(s),
    "spaces": lambda s: " ".join(s[i : i + 5] for i in range(0, len(s), 5)),
    "line breaks": lambda s: "\n    ".join(s[i : i + 7] for i in range(0, len(s), 7)),
    **{f"base64 at {k}": _b64(b"x" * k, urlsafe=False) for k in range(3)},
    **{f"base64url at {k}": _b64(b"\xfb" * k, urlsafe=True) for k in range(3)},
}


@RUNS
@given(
    secret=st.text(alphabet=SECRET_CHARS, min_size=8, max_size=40),
    encoding=st.sampled_from(sorted(ENCODINGS)),
    before=AROUND,
    after=AROUND,
)
@example(secret=KEY, encoding="base64 at 1", before="", after="")
def test_a_secret_in_any_encoding_leaves_no_six_characters_and_the_text_around_it_intact(
    secret: str, encoding: str, before: str, after: str
) -> None:
    echoed = ENCODINGS[encoding](secret)
    scrubbed = Scrubber([secret])(f"{before}<{echoed}>{after}")
    assert leaks({"scrubbed": scrubbed}, (secret,)) == {}
    assert scrubbed.startswith(f"{before}<") and scrubbed.endswith(f">{after}")


@RUNS
@given(
    user=st.text(alphabet=SECRET_CHARS.replace(":", ""), min_size=4, max_size=12),
    password=st.text(alphabet=SECRET_CHARS, min_size=8, max_size=24),
    encoding=st.sampled_from(["plain", "reversed", "base64 at 0", "base64 at 1", "base64 at 2", "hex", "percent"]),
)
def test_the_basic_token_of_a_url_is_scrubbed_in_any_encoding(user: str, password: str, encoding: str) -> None:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    scrub = Scrubber([user, password, token])
    scrubbed = scrub(f"echo: {ENCODINGS[encoding](f'Authorization: Basic {token}')}")
    assert leaks({"scrubbed": scrubbed}, (password,)) == {}


@RUNS
@given(secret=st.text(alphabet=SECRET_CHARS, min_size=8, max_size=40), text=AROUND)
def test_text_that_holds_no_secret_is_returned_unchanged(secret: str, text: str) -> None:
    assert Scrubber([secret])(text) == text


def test_a_malformed_answer_is_described_by_shape_never_quoted() -> None:
    """A 200 answer without choices may echo the key: the error names its type, size and hash, not its text."""
    from pfungst.errors import ResponseInvalid
    from pfungst.models.openai_wire import first_choice

    with pytest.raises(
        ResponseInvalid, match=r"got a dict of 1 entries \(\d+ characters as text, sha256 [0-9a-f]{12}\)"
    ):
        first_choice({"error": "your key sk-canary-1234567890 is wrong"})
    try:
        first_choice({"error": "your key sk-canary-1234567890 is wrong"})
    except ResponseInvalid as error:
        assert "canary" not in str(error) and "error" not in str(error).split("got", 1)[1]
