"""Model names, resolved lazily: ``pfungst formats`` lists them and ``--model`` accepts them.

A model spec is one of:

- a registry name (:data:`MODELS`): ``smollm2`` (the embedded default), ``gemma3-270m``, or the name of a backend
  that an installed package registers with an entry point in the group ``pfungst.backends`` (a factory called with
  the keyword options, returning a :class:`~pfungst.models.protocol.LanguageModel`);
- a path to a ``.gguf`` file, run in-process by llama.cpp;
- a path to a transformers model folder (one with ``config.json``), run by transformers (``pfungst[hf]``);
- ``openai:<base_url>#<model>``, a model served by an OpenAI-compatible server (vLLM, llama.cpp server, TGI),
  e.g. ``openai:http://127.0.0.1:8080/v1#smollm2``.
"""

from __future__ import annotations

import inspect
import warnings
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError, unknown_name_message
from pfungst.models.protocol import LanguageModel
from pfungst.models.secrets import spec_without_credentials
from pfungst.registry import Registry, resolve_target

__all__ = ["MODELS", "OPENAI_FACTORY", "applicable_options", "load_model"]

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

OPENAI_FACTORY = "pfungst.models.openai:OpenAIModel"
"""Factory for ``openai:<base_url>#<model>`` specs, called with ``base_url=`` and ``model=``."""

_OPENAI_PREFIX = "openai:"
_GGUF_SUFFIX = ".gguf"
_LLAMACPP_FACTORY = "pfungst.models.llamacpp:LlamaCppModel"
_HF_FACTORY = "pfungst.models.hf:HFModel"
_SPEC_FORMS = "a path to a .gguf file, or 'openai:<base_url>#<model>'"
_OPTIONS_GO_TO = {  # a registry factory taking **options -> the class those options reach
    "pfungst.models.embedded:smollm2": _LLAMACPP_FACTORY,
    "pfungst.models.embedded:gemma3_270m": _LLAMACPP_FACTORY,
}
_SPEC_ARGUMENTS = frozenset({"base_url", "model", "path"})


def load_model(spec: str, **options: Any) -> LanguageModel:
    """Build the language model that ``spec`` names; nothing is imported before it is needed.

    Args:
        spec: A registry name (built in or from an installed package), a path to a ``.gguf`` file or to a
            transformers model folder, or ``openai:<base_url>#<model>``.
        **options: Keyword options for the backend (e.g. ``n_ctx`` for llama.cpp).

    Raises:
        ConfigError: ``spec`` is none of the three forms (the message lists close names and every name).
        ConfigError: An option does not apply to the backend (the message names the backend and its options).
        MissingDependency: The backend's package is not installed (the message gives the install line).
        BackendUnavailable: The model file or server cannot be used.

    Example:
        >>> load_model("smollm3")
        Traceback (most recent call last):
        ...
        pfungst.errors.ConfigError: Unknown model 'smollm3'. Did you mean: smollm2? Available: gemma3-270m, \
smollm2 (or a path to a .gguf file, or 'openai:<base_url>#<model>')
    """
    _refuse_options(spec, options)
    if spec.startswith(_OPENAI_PREFIX):
        base_url, model = _parse_openai(spec)
        return resolve_target(OPENAI_FACTORY)(base_url=base_url, model=model, **options)
    if spec in MODELS:
        with MODELS.plugin_code(spec, "construction"):
            return MODELS.resolve(spec)(**options)
    if (Path(spec).expanduser() / "config.json").is_file():
        return resolve_target(_HF_FACTORY)(spec, **options)
    if spec.lower().endswith(_GGUF_SUFFIX) or Path(spec).expanduser().is_file():
        return resolve_target(_LLAMACPP_FACTORY)(spec, **options)
    raise ConfigError(f"{unknown_name_message('model', spec, MODELS)} (or {_SPEC_FORMS})")


def _parse_openai(spec: str) -> tuple[str, str]:
    """Split ``openai:<base_url>#<model>`` at its last ``#``."""
    base_url, separator, model = spec[len(_OPENAI_PREFIX) :].rpartition("#")
    if not separator or not base_url or not model:
        raise ConfigError(
            f"Model spec {spec_without_credentials(spec)!r} lacks a base URL or a model name: write "
            "'openai:<base_url>#<model>', e.g. 'openai:http://127.0.0.1:8080/v1#smollm2'."
        )
    return base_url, model


def applicable_options(spec: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The ``options`` that the backend of ``spec`` takes; each other one is dropped with a warning naming it.

    For callers that set options for several kinds of model at once (the CLI's ``--threads`` and ``--timeout``).

    Example:
        >>> import warnings
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     applicable_options("openai:http://127.0.0.1:8080#m", {"n_threads": 2, "timeout": 5.0})
        {'timeout': 5.0}
        >>> str(caught[0].message)
        "Option n_threads does not apply to the 'openai' backend; ignored."
    """
    backend, accepted = _accepted_options(spec)
    unused = [name for name in options if accepted is not None and name not in accepted]
    for name in unused:
        warnings.warn(f"Option {name} does not apply to the '{backend}' backend; ignored.", UserWarning, stacklevel=2)
    return {name: value for name, value in options.items() if name not in unused}


def _refuse_options(spec: str, options: Mapping[str, Any]) -> None:
    backend, accepted = _accepted_options(spec) if options else ("", None)
    unknown = sorted(name for name in options if accepted is not None and name not in accepted)
    if unknown:
        raise ConfigError(
            f"Option(s) {', '.join(unknown)} do not apply to the '{backend}' backend of model "
            f"{spec_without_credentials(spec)!r}. "
            f"It takes: {', '.join(sorted(accepted or ()))}."
        )


def _accepted_options(spec: str) -> tuple[str, frozenset[str] | None]:
    """The backend of ``spec`` and the keyword options its factory takes (``None``: it takes any)."""
    target: Any
    if spec.startswith(_OPENAI_PREFIX):
        backend, target = "openai", OPENAI_FACTORY
    elif spec in MODELS:
        entry = MODELS[spec]
        backend, target = spec, _OPTIONS_GO_TO.get(entry, entry) if isinstance(entry, str) else entry
    elif (Path(spec).expanduser() / "config.json").is_file():
        backend, target = "hf", _HF_FACTORY
    else:
        backend, target = "llamacpp", _LLAMACPP_FACTORY
    try:
        factory = resolve_target(target) if isinstance(target, str) else target
        parameters = inspect.signature(factory).parameters.values()
    except Exception:  # the load itself says what is wrong (a missing package, a plugin that fails to import)
        return backend, None
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return backend, None
    named = (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    return backend, frozenset(p.name for p in parameters if p.kind in named) - _SPEC_ARGUMENTS
