"""Model specs, parsed once into a :class:`ModelSpec` and resolved lazily: ``pfungst formats`` lists the names and
providers, ``--model`` accepts them.

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

:meth:`ModelSpec.parse` is the one place a spec is told apart; the command line parses each ``--model`` once, before
it reads any data, and :func:`load_model` takes the parsed spec (or a string, parsed the same way).
"""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pfungst.errors import ConfigError, unknown_name_message
from pfungst.models.protocol import LanguageModel
from pfungst.models.providers import PROVIDERS, Provider, keyword_options
from pfungst.models.secrets import spec_without_credentials
from pfungst.registry import Registry, resolve_target

__all__ = ["MODELS", "ModelSpec", "load_model"]

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


@dataclass(frozen=True, repr=False)
class ModelSpec:
    """A model spec parsed once: which backend builds the model, from what, with which keyword options.

    Build one with :meth:`parse`; its ``repr`` and ``str`` never show a URL's credentials or an option's value.

    Example:
        >>> spec = ModelSpec.parse("openai:http://user:sk-secret@127.0.0.1:8080/v1#smollm2")
        >>> spec.backend, spec.target.endswith("#smollm2"), str(spec)
        ('openai', True, 'openai:http://127.0.0.1:8080/v1#smollm2')
        >>> ModelSpec.parse("smollm2").with_options({"n_ctx": 256})
        ModelSpec('smollm2', options=['n_ctx'])
    """

    backend: str
    """The provider prefix (``openai``, ``llamacpp``, ``hf``, an installed package's) or the registry name
    (``smollm2``)."""
    provider: Provider | None = None
    """The provider that builds it; None for a registry name (:data:`MODELS`)."""
    target: str = ""
    """What the provider reads: the spec after ``backend:`` (the path itself for a bare path); empty for a registry
    name. May hold credentials (an ``openai:`` URL's user and password): show :attr:`shown` instead."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Keyword options for the backend (``n_ctx`` for llama.cpp, ``timeout`` for a server), each one it takes."""
    text: str = field(default="", compare=False)
    """The spec as written (for messages, through :attr:`shown`)."""

    @classmethod
    def parse(cls, spec: str | ModelSpec) -> ModelSpec:
        """The one place a spec is told apart: ``provider:target``, registry name, model folder, GGUF path.

        A :class:`ModelSpec` is returned as it is.

        Raises:
            ConfigError: ``spec`` is none of these forms (the message lists close names, every name and every
                provider), or an unknown provider prefix (close matches and every provider).
        """
        if isinstance(spec, ModelSpec):
            return spec
        prefix, separator, target = spec.partition(":")
        is_prefix = bool(separator) and _PREFIX.fullmatch(prefix) is not None and len(prefix) > 1
        if is_prefix and prefix in PROVIDERS:
            return cls(prefix, PROVIDERS.resolve(prefix), target, text=spec)
        if spec in MODELS:
            return cls(spec, text=spec)
        path = Path(spec).expanduser()
        if (path / "config.json").is_file():
            return cls("hf", PROVIDERS.resolve("hf"), spec, text=spec)
        if spec.lower().endswith(_GGUF_SUFFIX) or path.is_file():
            return cls("llamacpp", PROVIDERS.resolve("llamacpp"), spec, text=spec)
        if is_prefix and not path.exists():
            raise ConfigError(
                f"{unknown_name_message('model provider', prefix, PROVIDERS)} (in model spec "
                f"{spec_without_credentials(spec)!r}; write provider:target)"
            )
        raise ConfigError(
            f"{unknown_name_message('model', spec, MODELS)} (or a path to a .gguf file or a transformers model "
            f"folder, or provider:target with a provider among: {', '.join(sorted(PROVIDERS))})"
        )

    @property
    def shown(self) -> str:
        """The spec to show or store: as written, without the credentials of a URL."""
        written = self.text or (f"{self.backend}:{self.target}" if self.provider is not None else self.backend)
        return spec_without_credentials(written)

    def __str__(self) -> str:
        return self.shown

    def __repr__(self) -> str:
        options = f", options={sorted(self.options)}" if self.options else ""
        return f"ModelSpec({self.shown!r}{options})"

    def accepted_options(self) -> frozenset[str] | None:
        """The keyword options the backend takes (None: it takes any, or it cannot be told before it loads)."""
        if self.provider is not None:
            return self.provider.options()
        entry = MODELS[self.backend]
        if isinstance(entry, str) and entry in _OPTIONS_GO_TO:
            return PROVIDERS.resolve(_OPTIONS_GO_TO[entry]).options()
        try:
            factory = resolve_target(entry) if isinstance(entry, str) else entry
        except Exception:  # the load itself says what is wrong (a missing package, a plugin that fails to import)
            return None
        return keyword_options(factory)

    def with_options(self, options: Mapping[str, Any]) -> ModelSpec:
        """This spec with ``options`` added to its own (a later value wins).

        Raises:
            ConfigError: an option the backend does not take (the message names the backend and its options).
        """
        if not options:
            return self
        accepted = self.accepted_options()
        unknown = sorted(name for name in options if accepted is not None and name not in accepted)
        if unknown:
            raise ConfigError(
                f"Option(s) {', '.join(unknown)} do not apply to the '{self.backend}' backend of model "
                f"{self.shown!r}. It takes: {', '.join(sorted(accepted or ()))}."
            )
        return replace(self, options={**self.options, **options})

    def applicable_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The ``options`` that the backend takes; each other one is dropped with a warning naming it.

        For callers that set options for several kinds of model at once (the CLI's ``--threads`` and ``--timeout``).

        Example:
            >>> import warnings
            >>> with warnings.catch_warnings(record=True) as caught:
            ...     warnings.simplefilter("always")
            ...     ModelSpec.parse("openai:http://127.0.0.1:8080#m").applicable_options({"n_threads": 2, "timeout": 5})
            {'timeout': 5}
            >>> str(caught[0].message)
            "Option n_threads does not apply to the 'openai' backend; ignored."
        """
        accepted = self.accepted_options()
        unused = [name for name in options if accepted is not None and name not in accepted]
        for name in unused:
            warnings.warn(
                f"Option {name} does not apply to the '{self.backend}' backend; ignored.", UserWarning, stacklevel=2
            )
        return {name: value for name, value in options.items() if name not in unused}


def load_model(spec: ModelSpec | str, **options: Any) -> LanguageModel:
    """Build the language model that ``spec`` names; nothing is imported before it is needed.

    Args:
        spec: A :class:`ModelSpec`, or a string parsed by :meth:`ModelSpec.parse`: ``provider:target``
            (``openai:<base_url>#<model>``, ``llamacpp:<path.gguf>``, ``hf:<folder>``, or an installed package's
            provider), a registry name (built in or from an installed package), or a path to a ``.gguf`` file or to
            a transformers model folder.
        **options: Keyword options for the backend (e.g. ``n_ctx`` for llama.cpp), added to the spec's own.

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
    parsed = ModelSpec.parse(spec).with_options(options)
    if parsed.provider is not None:
        with PROVIDERS.plugin_code(parsed.backend, "construction"):
            return parsed.provider.load(parsed.backend, parsed.target, **parsed.options)
    with MODELS.plugin_code(parsed.backend, "construction"):
        return MODELS.resolve(parsed.backend)(**parsed.options)
