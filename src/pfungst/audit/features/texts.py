"""The input check every text transformer shares: a sequence of strings, one per item, never a bare string."""

from __future__ import annotations

from typing import Any

from pfungst.errors import ConfigError

__all__ = ["as_texts"]


def as_texts(X: Any, features: str, unit: str) -> list[str]:
    """The documents of ``X`` as a list of strings; a bare string is refused (it is not a sequence of texts).

    ``features`` names the transformer in the error (``n-gram``) and ``unit`` what one entry is (``document``).

    Example:
        >>> as_texts(("a cat", "a dog"), "n-gram", "document")
        ['a cat', 'a dog']
        >>> as_texts(["a cat", 3], "readability", "text")
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: readability features take strings; text 1 is int
    """
    if isinstance(X, str | bytes):
        raise ConfigError(
            f"{features} features take a sequence of texts (one per item), not a single string; wrap it in a list"
        )
    texts = list(X)
    wrong = next((index for index, text in enumerate(texts) if not isinstance(text, str)), None)
    if wrong is not None:
        raise ConfigError(f"{features} features take strings; {unit} {wrong} is {type(texts[wrong]).__name__}")
    return texts
