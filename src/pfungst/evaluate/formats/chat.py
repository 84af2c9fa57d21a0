"""Chat templates: a list of messages rendered to the one string a completion model is given.

A template is any callable ``messages -> str`` (a backend may provide the model's own, e.g. from its GGUF
metadata) or the name of a built-in one. The built-in ``chatml`` renderer writes the ChatML turns SmolLM2 was tuned
on, without the default system prompt its Jinja template would add, and opens the assistant turn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pfungst.errors import ConfigError
from pfungst.registry import Registry

__all__ = ["CHAT_TEMPLATES", "ChatTemplate", "render_chatml", "resolve_chat_template"]

ChatTemplate = Callable[[Sequence[Mapping[str, str]]], str]
"""Renders ``[{"role": ..., "content": ...}, ...]`` to a prompt string that ends where the assistant answers."""


def render_chatml(messages: Sequence[Mapping[str, str]]) -> str:
    """ChatML (SmolLM2, Qwen): each message in ``<|im_start|>role ... <|im_end|>``, then an open assistant turn.

    Example:
        >>> render_chatml([{"role": "user", "content": "Hi"}])
        '<|im_start|>user\\nHi<|im_end|>\\n<|im_start|>assistant\\n'
    """
    turns = [f"<|im_start|>{message['role']}\n{message['content']}<|im_end|>\n" for message in messages]
    return "".join(turns) + "<|im_start|>assistant\n"


CHAT_TEMPLATES: Registry[ChatTemplate] = Registry("chat template", {"chatml": render_chatml}, group=None)
"""Built-in chat template name -> renderer."""


def resolve_chat_template(template: str | ChatTemplate) -> ChatTemplate:
    """The renderer for a template name or callable.

    Raises:
        ConfigError: an unknown name, or something that is neither a name nor callable.
    """
    if isinstance(template, str):
        return CHAT_TEMPLATES.resolve(template)
    if not callable(template):
        raise ConfigError(f"chat_template must be a template name or a callable, got {type(template).__name__}")
    return template
