"""The scrubber removes a secret in every form a server may echo it, and the credentials of a URL."""

from __future__ import annotations

import pytest

from pfungst.models.secrets import Scrubber, spec_without_credentials, url_credentials, without_credentials

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
