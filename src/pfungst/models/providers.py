"""Model providers: the ``provider:`` prefix of a model spec names the backend that reads the rest.

A spec ``openai:http://127.0.0.1:8080/v1#smollm2`` is the provider ``openai`` with the target
``http://127.0.0.1:8080/v1#smollm2``. Every provider, built in or from an installed package (entry-point group
``pfungst.providers``), is a :class:`Provider` in :data:`PROVIDERS`; ``pfungst formats --what providers`` lists them.

Example:
    >>> PROVIDERS.resolve("openai").form
    'openai:<base_url>#<model>'
    >>> PROVIDERS.resolve("opnai")
    Traceback (most recent call last):
    ...
    pfungst.errors.ConfigError: Unknown model provider 'opnai'. Did you mean: openai? Available: hf, llamacpp, openai
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pfungst.errors import ConfigError, MissingDependency
from pfungst.models.protocol import LanguageModel
from pfungst.models.secrets import spec_without_credentials
from pfungst.registry import Registry, resolve_target

__all__ = ["PROVIDERS", "Provider"]


@dataclass(frozen=True)
class Provider:
    """How the specs of one ``provider:`` prefix become a language model.

    A plugin registers one under the entry-point group ``pfungst.providers``; the entry point's name is the prefix:

    .. code-block:: toml

        [project.entry-points."pfungst.providers"]
        chars = "mypkg.backend:CHARS"   # CHARS = Provider(factory=..., form="chars:<cost>", ...)
    """

    factory: str | Callable[..., LanguageModel]
    """The backend (a ``"module:Name"`` string, imported when a spec of this provider is loaded, or the callable):
    called with the spec arguments (:attr:`arguments`) and the keyword options (``n_ctx=``, ``timeout=``, ...)."""
    form: str
    """How a spec of this provider is written (``openai:<base_url>#<model>``), for messages and listings."""
    description: str = ""
    """One line for ``pfungst formats --what providers``."""
    arguments: Callable[[str], Mapping[str, Any]] | None = None
    """The target (the spec after ``prefix:``) -> the factory's keyword arguments; it raises
    :class:`~pfungst.errors.ConfigError` for a malformed target. None: the target is the factory's first argument."""
    requires: tuple[str, ...] = ()
    """Modules the backend needs; one that is not installed stops the load with :attr:`install`."""
    install: str = ""
    """What to run when a module of :attr:`requires` is missing (``pip install 'pfungst[hf]'``)."""

    def check_installed(self, name: str) -> None:
        """Raise :class:`~pfungst.errors.MissingDependency` with the install line unless every required module is
        installed.

        Args:
            name: The provider's prefix, for the message.
        """
        missing = [module for module in self.requires if not _installed(module)]
        if missing:
            needs = self.install or f"the module(s) {', '.join(missing)}"
            raise MissingDependency(f"The '{name}' backend needs: {needs}")

    def load(self, name: str, target: str, **options: Any) -> LanguageModel:
        """The model that ``target`` (the spec after ``name:``) names, built with the keyword ``options``.

        Raises:
            MissingDependency: a module of :attr:`requires` is not installed (the message gives :attr:`install`).
            ConfigError: a malformed target.
        """
        self.check_installed(name)
        factory = self.backend()
        if self.arguments is None:
            model: LanguageModel = factory(target, **options)
            return model
        built: LanguageModel = factory(**self.arguments(target), **options)
        return built

    def backend(self) -> Callable[..., LanguageModel]:
        """The factory, imported if it was given as ``"module:Name"``."""
        return resolve_target(self.factory) if isinstance(self.factory, str) else self.factory

    def options(self) -> frozenset[str] | None:
        """The keyword options the factory takes besides the spec arguments (None: any, or unknown before import)."""
        try:
            factory = self.backend()
        except Exception:  # the load itself says what is wrong (a missing package, a plugin that fails to import)
            return None
        return keyword_options(factory, spec_arguments=1 if self.arguments is None else "required")


def keyword_options(factory: Callable[..., Any], spec_arguments: int | str = 0) -> frozenset[str] | None:
    """The keyword options ``factory`` takes (None: any, through ``**options``, or no signature to read).

    Args:
        factory: A backend class or function.
        spec_arguments: The parameters the model spec fills, left out: a count of leading ones, or ``"required"``
            for every parameter without a default.
    """
    try:
        parameters = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return None
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return None
    named = [
        p for p in parameters if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    ]
    if spec_arguments == "required":
        return frozenset(p.name for p in named if p.default is not inspect.Parameter.empty)
    return frozenset(p.name for p in named[int(spec_arguments) :])


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module set to None in sys.modules
        return False


def openai_arguments(target: str) -> dict[str, str]:
    """Split ``<base_url>#<model>`` at its last ``#``.

    Raises:
        ConfigError: the base URL or the model name is missing.

    Example:
        >>> openai_arguments("http://127.0.0.1:8080/v1#smollm2")
        {'base_url': 'http://127.0.0.1:8080/v1', 'model': 'smollm2'}
    """
    base_url, separator, model = target.rpartition("#")
    if not separator or not base_url or not model:
        raise ConfigError(
            f"Model spec {spec_without_credentials('openai:' + target)!r} lacks a base URL or a model name: write "
            "'openai:<base_url>#<model>', e.g. 'openai:http://127.0.0.1:8080/v1#smollm2'."
        )
    return {"base_url": base_url, "model": model}


_LLAMA_INSTALL = "pip install 'pfungst[llama]' (llama-cpp-python compiles from source, about 9 minutes on 2 cores)"

PROVIDERS: Registry[Provider] = Registry(
    "model provider",
    {
        "hf": Provider(
            factory="pfungst.models.hf:HFModel",
            form="hf:<folder>",
            description="a transformers model folder (one with config.json), run in-process by transformers",
            requires=("torch", "transformers"),
            install="pip install 'pfungst[hf]'",
        ),
        "llamacpp": Provider(
            factory="pfungst.models.llamacpp:LlamaCppModel",
            form="llamacpp:<path.gguf>",
            description="a GGUF file, run in-process by llama.cpp",
            requires=("llama_cpp",),
            install=_LLAMA_INSTALL,
        ),
        "openai": Provider(
            factory="pfungst.models.openai:OpenAIModel",
            form="openai:<base_url>#<model>",
            description="a model served by an OpenAI-compatible server (vLLM, llama.cpp server, TGI)",
            arguments=openai_arguments,
        ),
    },
    group="pfungst.providers",
)
"""Prefix -> :class:`Provider`. Installed packages add theirs through the ``pfungst.providers`` entry points."""
