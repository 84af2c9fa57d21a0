"""Model specs, resolved lazily: ``pfungst formats`` lists the names and providers, ``--model`` accepts them.

A model spec is one of:

- ``provider:target``, where ``provider`` is a prefix of :data:`~pfungst.models.providers.PROVIDERS`: built in,
  ``openai:<base_url>#<model>`` (an OpenAI-compatible server: vLLM, llama.cpp server, TGI),
  ``llamacpp:<path.gguf>`` and ``hf:<folder>``, or one an installed package registers with an entry point in the
  group ``pfungst.providers``;
- a registry name (:data:`MODELS`): ``smollm2`` (the embedded default), ``gemma3-270m``, or the name of a model
  that an installed package registers with an entry point in the group ``pfungst.backends`` (a factory called with
  the keyword options, returning a :class:`~pfungst.models.protocol.LanguageModel`);
- a path to a ``.gguf`` file (the ``llamacpp`` provider) or to a transformers model folder, one with ``config.json``
  (the ``hf`` provider).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NamedTuple

from pfungst.errors import ConfigError, unknown_name_message
from pfungst.models.protocol import LanguageModel
from pfungst.models.providers import PROVIDERS, Provider, keyword_options
from pfungst.models.secrets import spec_without_credentials
from pfungst.registry import Registry, resolve_target

__all__ = ["MODELS", "applicable_options", "load_model"]

MODELS: Registry[Callable[..., LanguageModel]] = Registry(
    "model",
    {
        "gemma3-270m": "pfungst.models.embedded:gemma3_270m",
        "smollm2": "pfungst.models.embedded:smollm2",
    },
    group="pfungst.backends",
)
"""Registry name -> ``"module:factory"``; the factory takes keyword options and returns a LanguageModel.
Installed packages add theirs through the ``pfungst.backends`` entry points."""

_GGUF_SUFFIX = ".gguf"
_OPTIONS_GO_TO = {  # a registry factory taking **options -> the provider whose backend those options reach
    "pfungst.models.embedded:smollm2": "llamacpp",
    "pfungst.models.embedded:gemma3_270m": "llamacpp",
}
_PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_.+-]*")
"""What reads as a provider prefix: a URL scheme's letters, never a Windows drive letter (one character)."""


class _Route(NamedTuple):
    """Which backend builds a spec: a provider with its target, or a registry name."""

    backend: str
    """The provider prefix or the registry name, for messages."""
    provider: Provider | None
    """The provider (None: a registry name)."""
    target: str
    """The spec after the prefix (the path itself for a bare path)."""


def load_model(spec: str, **options: Any) -> LanguageModel:
    """Build the language model that ``spec`` names; nothing is imported before it is needed.

    Args:
        spec: ``provider:target`` (``openai:<base_url>#<model>``, ``llamacpp:<path.gguf>``, ``hf:<folder>``, or an
            installed package's provider), a registry name (built in or from an installed package), or a path to a
            ``.gguf`` file or to a transformers model folder.
        **options: Keyword options for the backend (e.g. ``n_ctx`` for llama.cpp).

    Raises:
        ConfigError: ``spec`` is none of these forms (the message lists close names, every name and every
            provider), or an unknown provider prefix (close matches and every provider).
        ConfigError: An option does not apply to the backend (the message names the backend and its options).
        MissingDependency: The backend's package is not installed (the message gives the install line).
        BackendUnavailable: The model file or server cannot be used.

    Example:
        >>> load_model("smollm3")
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: Unknown model 'smollm3'. Did you mean: smollm2? Available: gemma3-270m, \
smollm2 (or a path to a .gguf file or a transformers model folder, or provider:target with a provider among: hf, \
llamacpp, openai)
    """
    route = _route(spec)
    _refuse_options(spec, route, options)
    if route.provider is not None:
        with PROVIDERS.plugin_code(route.backend, "construction"):
            return route.provider.load(route.backend, route.target, **options)
    with MODELS.plugin_code(spec, "construction"):
        return MODELS.resolve(spec)(**options)


def _route(spec: str) -> _Route:
    """The one place a spec is told apart: ``provider:``, registry name, model folder, GGUF path, or unknown."""
    prefix, separator, target = spec.partition(":")
    is_prefix = bool(separator) and _PREFIX.fullmatch(prefix) is not None and len(prefix) > 1
    if is_prefix and prefix in PROVIDERS:
        return _Route(prefix, PROVIDERS.resolve(prefix), target)
    if spec in MODELS:
        return _Route(spec, None, "")
    path = Path(spec).expanduser()
    if (path / "config.json").is_file():
        return _Route("hf", PROVIDERS.resolve("hf"), spec)
    if spec.lower().endswith(_GGUF_SUFFIX) or path.is_file():
        return _Route("llamacpp", PROVIDERS.resolve("llamacpp"), spec)
    if is_prefix and not path.exists():
        raise ConfigError(
            f"{unknown_name_message('model provider', prefix, PROVIDERS)} (in model spec "
            f"{spec_without_credentials(spec)!r}; write provider:target)"
        )
    raise ConfigError(
        f"{unknown_name_message('model', spec, MODELS)} (or a path to a .gguf file or a transformers model folder, "
        f"or provider:target with a provider among: {', '.join(sorted(PROVIDERS))})"
    )


def applicable_options(spec: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``options`` that the backend of ``spec`` takes; each other one is dropped with a warning naming it.

    For callers that set options for several kinds of model at once (the CLI's ``--threads`` and ``--timeout``).

    Raises:
        ConfigError: ``spec`` is none of the forms of :func:`load_model`.

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     applicable_options("openai:http://127.0.0.1:8080#m", {"n_threads": 2, "timeout": 5.0})
        {'timeout': 5.0}
        >>> str(caught[0].message)
        "Option n_threads does not apply to the 'openai' backend; ignored."
    """
    route = _route(spec)
    accepted = _accepted_options(route)
    unused = [name for name in options if accepted is not None and name not in accepted]
    for name in unused:
        warnings.warn(
            f"Option {name} does not apply to the '{route.backend}' backend; ignored.", UserWarning, stacklevel=2
        )
    return {name: value for name, value in options.items() if name not in unused}


def _refuse_options(spec: str, route: _Route, options: Mapping[str, Any]) -> None:
    accepted = _accepted_options(route) if options else None
    unknown = sorted(name for name in options if accepted is not None and name not in accepted)
    if unknown:
        raise ConfigError(
            f"Option(s) {', '.join(unknown)} do not apply to the '{route.backend}' backend of model "
            f"{spec_without_credentials(spec)!r}. "
            f"It takes: {', '.join(sorted(accepted or ()))}."
        )


def _accepted_options(route: _Route) -> frozenset[str] | None:
    """The keyword options the backend of ``route`` takes (``None``: it takes any, or it cannot be told yet)."""
    if route.provider is not None:
        return route.provider.options()
    entry = MODELS[route.backend]
    if isinstance(entry, str) and entry in _OPTIONS_GO_TO:
        return PROVIDERS.resolve(_OPTIONS_GO_TO[entry]).options()
    try:
        factory = resolve_target(entry) if isinstance(entry, str) else entry
    except Exception:  # the load itself says what is wrong (a missing package, a plugin that fails to import)
        return None
    return keyword_options(factory)
