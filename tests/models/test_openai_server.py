"""The OpenAI-compatible backend against a real ``python -m llama_cpp.server`` on the embedded SmolLM2 GGUF.

The reference is the in-process llama.cpp backend on the same file: letter scoring through the server must choose
the same option on every prompt with log-probabilities within 1e-3.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
httpx = pytest.importorskip("httpx", reason="the openai backend needs httpx: pip install 'pfungst[openai]'")
for _module in ("fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"):
    pytest.importorskip(_module, reason="llama_cpp.server needs: pip install 'llama-cpp-python[server]'")

from pfungst.errors import ConfigError, RequestFailed  # noqa: E402
from pfungst.models.llamacpp import LlamaCppModel  # noqa: E402
from pfungst.models.openai import OpenAIModel  # noqa: E402
from pfungst.models.requests import GenerateRequest, LoglikelihoodRequest, NextTokenRequest  # noqa: E402

LETTERS = (" A", " B", " C", " D")
SMOLLM2_BOS = "<|im_start|>"
TOLERANCE = 1e-3
pytestmark = pytest.mark.slow  # a real llama_cpp.server on the embedded model


@pytest.fixture(scope="session")
def in_process(smollm2_path: Path) -> Iterator[LlamaCppModel]:
    model = LlamaCppModel(smollm2_path)
    yield model
    model.close()


@pytest.fixture(scope="session")
def served(llama_server: str) -> Iterator[OpenAIModel]:
    with OpenAIModel(llama_server, "smollm2", max_concurrency=2) as model:
        yield model


@pytest.fixture(scope="session")
def served_with_bos(llama_server: str) -> Iterator[OpenAIModel]:
    with OpenAIModel(llama_server, "smollm2", max_concurrency=2, bos_text=SMOLLM2_BOS) as model:
        yield model


def _arc_prompts(shared_data: Path, count: int = 20) -> list[tuple[str, tuple[str, ...], int]]:
    """The first ``count`` four-option ARC-Easy items as (prompt ending in 'Answer:', options, gold)."""
    items = []
    with (shared_data / "llm_foundry" / "arc_easy.jsonl").open(encoding="utf-8") as lines:
        for line in lines:
            record = json.loads(line)
            if len(record["choices"]) != 4:
                continue
            body = "\n".join(f"{label}. {text}" for label, text in zip("ABCD", record["choices"], strict=True))
            items.append((f"{record['query']}\n{body}\nAnswer:", tuple(record["choices"]), int(record["gold"])))
            if len(items) == count:
                break
    return items


def _argmax(values: tuple[float, ...]) -> int:
    return max(range(len(values)), key=values.__getitem__)


def test_server_reports_the_model_file_and_the_echo_shift_of_smollm2(served: OpenAIModel, smollm2_path: Path) -> None:
    assert served.fingerprint == f"openai:{served.base_url}#{smollm2_path}"
    assert served.capabilities == {"next_token", "generate"}
    assert "shifted by one token" in " ".join(served.limitations)
    with pytest.raises(ConfigError, match=r"cannot serve 'loglikelihood'.*bos_text"):
        served.loglikelihood([LoglikelihoodRequest("The capital of France is", " Paris")])


def test_letter_scoring_through_the_server_matches_in_process_llamacpp(
    served: OpenAIModel, in_process: LlamaCppModel, shared_data: Path
) -> None:
    requests = [NextTokenRequest(prompt, LETTERS) for prompt, _, _ in _arc_prompts(shared_data)]
    remote = served.next_token_logprobs(requests)
    local = in_process.next_token_logprobs(requests)
    for request, through_server, reference in zip(requests, remote, local, strict=True):
        assert _argmax(through_server.logprobs) == _argmax(reference.logprobs), request.context
        assert through_server.logprobs == pytest.approx(reference.logprobs, abs=TOLERANCE), request.context


def test_labels_without_leading_space_and_a_trailing_space_context_match_in_process(
    served: OpenAIModel, in_process: LlamaCppModel
) -> None:
    requests = [NextTokenRequest("Question: Is water wet?\nA. yes\nB. no\nAnswer: ", ("A", "B", "C", "D"))]
    [remote] = served.next_token_logprobs(requests)
    [local] = in_process.next_token_logprobs(requests)
    assert remote.logprobs == pytest.approx(local.logprobs, abs=TOLERANCE)


@pytest.fixture(scope="session")
def fresh_llama(smollm2_path: Path) -> Iterator[object]:
    """llama_cpp.Llama used directly: each text evaluated afresh in one batch, as the server evaluates an echo."""
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(smollm2_path), n_ctx=2048, logits_all=True, verbose=False)
    yield llm
    llm.close()


def _fresh_loglikelihood(llm: object, context: str, continuation: str) -> float:
    """Sum of the continuation's token log-probabilities after ``context``, from one fresh evaluation."""
    tokenize = llm.tokenize  # type: ignore[attr-defined]
    tokens = tokenize((context + continuation).encode(), add_bos=True, special=True)
    start = len(tokenize(context.encode(), add_bos=True, special=True))
    llm.reset()  # type: ignore[attr-defined]
    llm.eval(tokens)  # type: ignore[attr-defined]
    logits = np.asarray(llm.scores[: len(tokens)], dtype=np.float64)  # type: ignore[attr-defined]
    logprobs = logits - logits.max(axis=1, keepdims=True)
    logprobs -= np.log(np.exp(logprobs).sum(axis=1, keepdims=True))
    return float(sum(logprobs[i - 1, tokens[i]] for i in range(start, len(tokens))))


def _cloze(shared_data: Path, items: int) -> list[tuple[str, str]]:
    return [
        (prompt.split("\n")[0] + "\nAnswer:", " " + option)
        for prompt, options, _ in _arc_prompts(shared_data, items)
        for option in options
    ]


def test_echo_loglikelihood_with_bos_text_equals_a_fresh_evaluation_of_the_same_text(
    served_with_bos: OpenAIModel, fresh_llama: object, shared_data: Path
) -> None:
    assert "loglikelihood" in served_with_bos.capabilities
    cloze = _cloze(shared_data, 1)[:2]  # each echo costs the server ~0.1 s per prompt token (see the report)
    remote = served_with_bos.loglikelihood([LoglikelihoodRequest(context, option) for context, option in cloze])
    for (context, option), through_server in zip(cloze, remote, strict=True):
        reference = _fresh_loglikelihood(fresh_llama, SMOLLM2_BOS + context, option)
        assert through_server.logprob == pytest.approx(reference, abs=TOLERANCE), (context, option)
        assert through_server.n_bytes == len(option.encode())


def test_multi_token_candidates_are_scored_by_echo_like_a_fresh_evaluation(
    served_with_bos: OpenAIModel, fresh_llama: object
) -> None:
    context = "Question: What do plants need?\nAnswer:"
    candidates = (" A", " sunlight and water")
    [remote] = served_with_bos.next_token_logprobs([NextTokenRequest(context, candidates)])
    expected = [_fresh_loglikelihood(fresh_llama, SMOLLM2_BOS + context, candidate) for candidate in candidates]
    assert remote.logprobs == pytest.approx(expected, abs=TOLERANCE)


def test_greedy_generation_matches_in_process(served: OpenAIModel, in_process: LlamaCppModel) -> None:
    request = GenerateRequest("The three primary colours are", max_tokens=8)
    [remote] = served.generate([request])
    [local] = in_process.generate([request])
    assert (remote.text, remote.finish_reason) == (local.text, local.finish_reason)


def test_a_prompt_longer_than_the_context_window_is_request_failed_with_the_servers_reason(
    llama_server: str,
) -> None:
    model = OpenAIModel(llama_server, "smollm2", retries=0, debug=True)  # debug: the server's own reason shown
    with model, pytest.raises(RequestFailed, match=r"HTTP (400|500).*(context|token)"):
        model.generate([GenerateRequest("word " * 3000, max_tokens=1)])


def test_chat_mode_scores_labels_through_the_chat_template_and_refuses_loglikelihood(llama_server: str) -> None:
    with OpenAIModel(llama_server, "smollm2", chat=True) as model:
        assert model.capabilities == {"next_token", "generate"}
        assert model.fingerprint.endswith(";chat")
        [scores] = model.next_token_logprobs(
            [NextTokenRequest("Is water wet?\nA. yes\nB. no\nAnswer with the letter only.", ("A", "B", " A"))]
        )
        assert all(-30.0 < value < 0.0 for value in scores.logprobs)
        with pytest.raises(ConfigError, match=r"not served in chat mode"):
            model.loglikelihood([LoglikelihoodRequest("Water is", " wet")])
