"""Prompt formats: rendering an arranged item to a prompt, a grammar of equivalent formats, built-in formats."""

from pfungst.evaluate.formats.builtin import BUILTIN_FORMATS, get_format
from pfungst.evaluate.formats.chat import CHAT_TEMPLATES, ChatTemplate, render_chatml
from pfungst.evaluate.formats.grammar import FormatGrammar
from pfungst.evaluate.formats.labels import LABEL_STYLES, make_labels
from pfungst.evaluate.formats.prompt import Casing, PromptFormat, RenderedPrompt, Span

__all__ = [
    "BUILTIN_FORMATS",
    "CHAT_TEMPLATES",
    "LABEL_STYLES",
    "Casing",
    "ChatTemplate",
    "FormatGrammar",
    "PromptFormat",
    "RenderedPrompt",
    "Span",
    "get_format",
    "make_labels",
    "render_chatml",
]
