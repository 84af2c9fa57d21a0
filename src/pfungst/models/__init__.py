"""Language models behind one batched protocol: llama.cpp (default, embedded SmolLM2), OpenAI-compatible servers,
transformers; each ``provider:`` prefix of a model spec is a :class:`Provider` in :data:`PROVIDERS`.

Importing this package imports neither llama-cpp-python nor httpx: each backend imports its engine when a model is
built (:func:`load_model`, or the backend class called directly).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pfungst.lazy import lazy_exports

if TYPE_CHECKING:
    from pfungst.models.cache import CachedModel, CacheStats, request_key
    from pfungst.models.llamacpp import LlamaCppModel
    from pfungst.models.openai import OpenAIModel
    from pfungst.models.protocol import Capability, LanguageModel
    from pfungst.models.providers import PROVIDERS, Provider
    from pfungst.models.registry import MODELS, ModelSpec, load_model
    from pfungst.models.requests import (
        GenerateRequest,
        Generation,
        Loglikelihood,
        LoglikelihoodRequest,
        NextTokenLogprobs,
        NextTokenRequest,
        Request,
        Result,
    )

__all__ = [
    "MODELS",
    "PROVIDERS",
    "CacheStats",
    "CachedModel",
    "Capability",
    "GenerateRequest",
    "Generation",
    "LanguageModel",
    "LlamaCppModel",
    "Loglikelihood",
    "LoglikelihoodRequest",
    "ModelSpec",
    "NextTokenLogprobs",
    "NextTokenRequest",
    "OpenAIModel",
    "Provider",
    "Request",
    "Result",
    "load_model",
    "request_key",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "CachedModel": "pfungst.models.cache",
        "CacheStats": "pfungst.models.cache",
        "request_key": "pfungst.models.cache",
        "LlamaCppModel": "pfungst.models.llamacpp",
        "OpenAIModel": "pfungst.models.openai",
        "Capability": "pfungst.models.protocol",
        "LanguageModel": "pfungst.models.protocol",
        "MODELS": "pfungst.models.registry",
        "ModelSpec": "pfungst.models.registry",
        "PROVIDERS": "pfungst.models.providers",
        "Provider": "pfungst.models.providers",
        "load_model": "pfungst.models.registry",
        "GenerateRequest": "pfungst.models.requests",
        "Generation": "pfungst.models.requests",
        "Loglikelihood": "pfungst.models.requests",
        "LoglikelihoodRequest": "pfungst.models.requests",
        "NextTokenLogprobs": "pfungst.models.requests",
        "NextTokenRequest": "pfungst.models.requests",
        "Request": "pfungst.models.requests",
        "Result": "pfungst.models.requests",
    },
    globals(),
)
