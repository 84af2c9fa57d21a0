"""Named built-in prompt formats: a module-level registry (STYLE rule 16) that ``pfungst formats`` can print."""

from __future__ import annotations

from pfungst.evaluate.formats.prompt import PromptFormat
from pfungst.registry import Registry

__all__ = ["BUILTIN_FORMATS", "get_format"]

_FORMATS: dict[str, PromptFormat] = {
    # lm-evaluation-harness's MMLU layout without its subject header: "question\nA. ...\nB. ...\nAnswer:".
    "mmlu": PromptFormat(),
    # A wrapped question and parenthesised labels: "Question: ...\n(A) ...\n(B) ...\nAnswer:".
    "plain": PromptFormat(wrapper="Question: {text}", label_template="({label})", separator=" "),
    # The mmlu layout as one ChatML user turn with an instruction, for instruction-tuned models such as SmolLM2.
    "chatml-letter": PromptFormat(
        instruction="Answer the following multiple choice question with the letter of the correct option.",
        chat_template="chatml",
    ),
}

BUILTIN_FORMATS: Registry[PromptFormat] = Registry("format", _FORMATS, group=None)
"""Built-in format name -> format."""


def get_format(name: str) -> PromptFormat:
    """The built-in format called ``name``.

    Raises:
        ConfigError: no built-in format has that name (the message lists close matches).

    Example:
        >>> get_format("mmlu").cue
        'Answer:'
    """
    return BUILTIN_FORMATS.resolve(name)
