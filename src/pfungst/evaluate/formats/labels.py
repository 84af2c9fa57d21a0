"""Option label styles: the strings that name options in a prompt (A/B/C, a/b/c, 1/2/3, I/II/III, i/ii/iii).

A style names how the *bare* label is spelled; its decoration (``(A)``, ``[A]``) is the format's label template.
Custom label sets (``("yes", "no")``) are given as a tuple instead of a style name.
"""

from __future__ import annotations

import string
from collections.abc import Sequence

from pfungst.errors import ConfigError, unknown_name_message

__all__ = ["LABEL_STYLES", "make_labels", "roman_numeral", "validate_label_style"]

LABEL_STYLES: dict[str, str] = {
    "A": "upper-case letters A, B, C, ... (at most 26 options)",
    "a": "lower-case letters a, b, c, ... (at most 26 options)",
    "1": "numbers 1, 2, 3, ...",
    "I": "upper-case roman numerals I, II, III, ...",
    "i": "lower-case roman numerals i, ii, iii, ...",
}
"""Built-in label style name -> description."""

_ROMAN = (
    (1000, "M"),
    (900, "CM"),
    (500, "D"),
    (400, "CD"),
    (100, "C"),
    (90, "XC"),
    (50, "L"),
    (40, "XL"),
    (10, "X"),
    (9, "IX"),
    (5, "V"),
    (4, "IV"),
    (1, "I"),
)


def roman_numeral(number: int) -> str:
    """The upper-case roman numeral of ``number`` (1 to 3999).

    Example:
        >>> [roman_numeral(n) for n in (1, 4, 9, 14)]
        ['I', 'IV', 'IX', 'XIV']
    """
    if not 1 <= number <= 3999:
        raise ConfigError(f"roman numerals cover 1..3999, got {number}")
    parts = []
    for value, numeral in _ROMAN:
        count, number = divmod(number, value)
        parts.append(numeral * count)
    return "".join(parts)


def validate_label_style(style: str | Sequence[str]) -> str | tuple[str, ...]:
    """Check a style name or a custom label set and return it in canonical (hashable) form.

    Raises:
        ConfigError: an unknown style name, or custom labels that are empty, padded with spaces or repeated.
    """
    if isinstance(style, str):
        if style not in LABEL_STYLES:
            raise ConfigError(unknown_name_message("label style", style, LABEL_STYLES))
        return style
    labels = tuple(style)
    if not labels:
        raise ConfigError("custom labels are empty; give one label per option, e.g. ('yes', 'no')")
    for label in labels:
        if not isinstance(label, str) or not label or label != label.strip():
            raise ConfigError(f"custom label {label!r} must be a non-empty string without surrounding spaces")
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise ConfigError(f"custom labels repeat {repeated}; every option needs its own label")
    return labels


def make_labels(style: str | tuple[str, ...], n_options: int) -> tuple[str, ...]:
    """The first ``n_options`` labels of ``style``.

    Raises:
        ConfigError: the style has fewer labels than the item has options.

    Example:
        >>> make_labels("I", 4)
        ('I', 'II', 'III', 'IV')
    """
    if isinstance(style, tuple):
        if n_options > len(style):
            raise ConfigError(f"{n_options} options but only {len(style)} custom labels {list(style)}")
        return style[:n_options]
    if style in ("A", "a"):
        if n_options > 26:
            raise ConfigError(
                f"label style '{style}' has 26 letters, but the item has {n_options} options. Use label style '1'."
            )
        letters = string.ascii_uppercase if style == "A" else string.ascii_lowercase
        return tuple(letters[:n_options])
    if style == "1":
        return tuple(str(number) for number in range(1, n_options + 1))
    numerals = tuple(roman_numeral(number) for number in range(1, n_options + 1))
    return numerals if style == "I" else tuple(numeral.lower() for numeral in numerals)
