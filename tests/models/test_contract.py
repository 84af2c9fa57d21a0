"""Every available backend through the LanguageModel protocol's checks (STYLE rule 33)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from pfungst.models.cache import CachedModel
from pfungst.models.protocol import LanguageModel
from pfungst.models.requests import GenerateRequest, LoglikelihoodRequest, NextTokenRequest
from tests.models.scripted import ScriptedModel

CONTEXTS = ["Question: Which is a planet?\nAnswer:", "Q: What melts ice?\nA:", "Pick one. 2 + 2 ="]
CONTINUATIONS = [" Mars", " the moon", " heat", " 4", " é, naïve"]


def _llamacpp(_: pytest.TempPathFactory) -> LanguageModel:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    from pfungst.models.embedded import smollm2

    return smollm2(n_ctx=512, n_threads=1)  # one thread: steady timing on a busy 2-core machine


def _hf(tmp_path_factory: pytest.TempPathFactory) -> LanguageModel:
    from pfungst.models.hf import HFModel
    from tests.models.hf_folder import smollm2_hf_folder

    return HFModel(smollm2_hf_folder(tmp_path_factory), n_threads=1)


BACKENDS: dict[str, Callable[[pytest.TempPathFactory], LanguageModel]] = {
    "scripted": lambda _: ScriptedModel(),
    "cached-scripted": lambda factory: CachedModel(ScriptedModel(), factory.mktemp("cached") / "cache.sqlite"),
    "llamacpp-smollm2": _llamacpp,
    "hf-smollm2": _hf,
}


@pytest.fixture(scope="module", params=sorted(BACKENDS))
def model(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LanguageModel]:
    yield BACKENDS[request.param](tmp_path_factory)


def _loglikelihood_requests() -> list[LoglikelihoodRequest]:
    return [LoglikelihoodRequest(c, k) for c in CONTEXTS for k in CONTINUATIONS]


def test_it_is_a_language_model_with_a_fingerprint_and_known_capabilities(model: LanguageModel) -> None:
    assert isinstance(model, LanguageModel)
    assert isinstance(model.fingerprint, str) and model.fingerprint
    assert model.capabilities <= {"loglikelihood", "next_token", "generate"}


def test_loglikelihood_answers_each_request_in_order(model: LanguageModel) -> None:
    requests = _loglikelihood_requests()
    batch = model.loglikelihood(requests)
    reordered = model.loglikelihood(requests[::-1])[::-1]
    alone = [model.loglikelihood([request])[0] for request in requests[:4]]

    assert len(batch) == len(requests)
    assert [r.logprob for r in reordered] == pytest.approx([r.logprob for r in batch], abs=1e-4)
    assert [r.logprob for r in alone] == pytest.approx([r.logprob for r in batch[:4]], abs=1e-4)
    assert len({r.logprob for r in batch}) > 1


def test_loglikelihood_values_are_log_probabilities_with_token_and_byte_counts(model: LanguageModel) -> None:
    requests = _loglikelihood_requests()
    for request, result in zip(requests, model.loglikelihood(requests), strict=True):
        assert result.logprob <= 0.0
        assert result.n_bytes == len(request.continuation.encode("utf-8"))
        assert 1 <= result.n_tokens <= result.n_bytes
        assert isinstance(result.greedy, bool)


def test_next_token_logprobs_answer_each_candidate_in_order(model: LanguageModel) -> None:
    requests = [NextTokenRequest(c, (" A", " B", " C", " D", "A")) for c in CONTEXTS]
    requests.append(NextTokenRequest(CONTEXTS[0], (" D", " A")))
    results = model.next_token_logprobs(requests)

    assert [len(r.logprobs) for r in results] == [len(r.candidates) for r in requests]
    assert all(value <= 0.0 for r in results for value in r.logprobs)
    assert results[-1].logprobs == pytest.approx((results[0].logprobs[3], results[0].logprobs[0]), abs=1e-4)


def test_empty_batches_give_empty_answers(model: LanguageModel) -> None:
    assert (model.loglikelihood([]), model.next_token_logprobs([]), model.generate([])) == ([], [], [])


def test_greedy_generation_is_deterministic_and_bounded(model: LanguageModel) -> None:
    requests = [GenerateRequest(c, max_tokens=5) for c in CONTEXTS]
    first = model.generate(requests)
    second = model.generate(requests[::-1])[::-1]

    assert first == second
    assert all(g.finish_reason in {"stop", "length"} for g in first)
    assert all(len(g.text) <= 5 * 32 for g in first)
