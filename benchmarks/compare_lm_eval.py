"""Cloze-scoring throughput of pfungst's backends against lm-evaluation-harness's ``HFLM`` on the same requests.

Issue 4's efficiency check. Builds the cloze-raw requests of the first ``--items`` ARC-Easy items exactly as
pfungst's ``cloze-raw`` rule does under the ``mmlu`` format (context ``"Question: ...\\nAnswer:"``, continuation
``" " + choice``: lm-eval's ``multiple_choice`` layout), then scores them, interleaved ``--runs`` times, with

* lm-eval's ``HFLM`` (``lm.loglikelihood`` over ``Instance`` objects, batch size 8: its best on a CPU),
* pfungst's :class:`~pfungst.models.hf.HFModel` on the same transformers folder,
* pfungst's :class:`~pfungst.models.llamacpp.LlamaCppModel` on the bundled GGUF (for information: another engine
  and 4-bit weights, so its log-likelihoods differ), with its stored Q4_1 weights and with ``weights="f16"`` (a
  converted copy in ``$PFUNGST_MODELS`` or ``~/.cache/pfungst/models``, written on the first run),

and prints the median seconds, items per second, the ratio to lm-eval, tokens fed against the minimum (each context
once plus every choice token), whether each backend picks the same option as lm-eval on every item (argmax of the
summed log-likelihood) and the largest absolute difference of log-likelihoods. Only the scoring call is timed; torch
(and llama.cpp) use ``--threads`` threads. Needs torch, transformers and ``lm-eval`` (``pip install lm-eval``).

Against the machine's limit: the script measures float32 matrix-multiply throughput (torch, the model's own layer
shapes at ``--threads`` threads, best of several products) and reports each backend's tokens per second and the
floating-point work it did (2 flops per weight per token fed, plus the vocabulary projection at every position a
backend projects: all positions for ``HFLM``, which keeps every position's logits, the scored ones for ``HFModel`` and
llama.cpp) as a share of that throughput; llama.cpp's row counts the same work although its 4-bit weights use
integer arithmetic. The last line gives the ceiling this sets: HFModel's own work (already below the minimum's, as
options share leading tokens) at the measured throughput, against lm-eval's median. With float32 arithmetic no
backend doing that work can beat lm-eval by more than that ratio on this machine.

Usage::

    python benchmarks/compare_lm_eval.py --model-dir /tmp/smollm2-hf [--items 200] [--runs 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matmul_limit import Work, matmul_gflops
from results_file import add_record_option, recording

import pfungst
from pfungst.evaluate.arrangement import ArrangedItem
from pfungst.evaluate.formats.builtin import get_format
from pfungst.evaluate.scoring.cloze import ClozeRawRule
from pfungst.models.requests import LoglikelihoodRequest

TITLE = "Cloze throughput against lm-evaluation-harness"
"""This script's section title in benchmarks/RESULTS.md."""

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "llm_foundry" / "arc_easy.jsonl"

Scorer = Callable[[Sequence[LoglikelihoodRequest]], tuple[list[float], int, int, int]]
"""Scores requests; returns the log-likelihoods, the real tokens fed, the tokens fed including padding and the
positions projected onto the vocabulary."""


def build_requests(n_items: int) -> tuple[list[LoglikelihoodRequest], list[int]]:
    """The cloze-raw requests of the first ``n_items`` items, and each item's number of options."""
    rule, prompt_format = ClozeRawRule(), get_format("mmlu")
    requests: list[LoglikelihoodRequest] = []
    sizes = []
    for item in list(pfungst.load(DATA))[:n_items]:
        arranged = ArrangedItem.identity(item)
        requests.extend(rule.requests(arranged, prompt_format.render(arranged)))  # type: ignore[arg-type]
        sizes.append(arranged.n_options)
    return requests, sizes


def lm_eval_scorer(model_dir: str, batch_size: int) -> Scorer:
    """lm-eval's ``HFLM``; counts the token positions of every forward call (padding included)."""
    from lm_eval.api.instance import Instance
    from lm_eval.models.huggingface import HFLM

    lm = HFLM(pretrained=model_dir, batch_size=batch_size, device="cpu", dtype="float32")
    fed = [0]
    model_call = lm._model_call

    def counting_call(inps: Any, *args: Any, **kwargs: Any) -> Any:
        fed[0] += int(inps.numel())
        return model_call(inps, *args, **kwargs)

    lm._model_call = counting_call  # type: ignore[method-assign]

    def score(requests: Sequence[LoglikelihoodRequest]) -> tuple[list[float], int, int, int]:
        fed[0] = 0
        instances = [
            Instance(request_type="loglikelihood", doc={}, arguments=(r.context, r.continuation), idx=i)
            for i, r in enumerate(requests)
        ]
        logprobs = [float(logprob) for logprob, _ in lm.loglikelihood(instances, disable_tqdm=True)]
        return logprobs, -1, fed[0], fed[0]  # HFLM keeps every position's logits

    return score


def pfungst_scorer(model: Any) -> Scorer:
    """A pfungst backend; real and padded token counts from its ``stats`` (it projects only the positions that
    predict a choice token)."""

    def score(requests: Sequence[LoglikelihoodRequest]) -> tuple[list[float], int, int, int]:
        before = (model.stats.tokens_evaluated, getattr(model.stats, "tokens_padded", 0))
        results = model.loglikelihood(requests)
        real = model.stats.tokens_evaluated - before[0]
        fed = real + getattr(model.stats, "tokens_padded", 0) - before[1]
        return [r.logprob for r in results], real, fed, sum(r.n_tokens for r in results)

    return score


def minimum_tokens(model: Any, requests: Sequence[LoglikelihoodRequest]) -> tuple[int, int]:
    """Each distinct context's tokens once plus every continuation token (as ``model`` splits them), and the
    continuation tokens alone (the positions that must be projected onto the vocabulary)."""
    contexts = {r.context.rstrip() for r in requests}
    continuation = sum(r.n_tokens for r in model.loglikelihood(requests))
    return sum(len(model.tokenize(c)) for c in contexts) + continuation, continuation


def choices(logprobs: Sequence[float], sizes: Sequence[int]) -> list[int]:
    """Each item's chosen option: the argmax of its options' summed log-likelihoods."""
    chosen, first = [], 0
    for size in sizes:
        scores = logprobs[first : first + size]
        chosen.append(max(range(size), key=scores.__getitem__))
        first += size
    return chosen


def run(scorers: dict[str, Scorer], requests: Sequence[LoglikelihoodRequest], runs: int) -> dict[str, dict[str, Any]]:
    """Interleave ``runs`` timed rounds over every scorer; keep each one's seconds, last scores and token counts."""
    out: dict[str, dict[str, Any]] = {name: {"seconds": []} for name in scorers}
    for round_ in range(runs):
        for name, scorer in scorers.items():
            started = time.perf_counter()
            logprobs, real, fed, projected = scorer(requests)
            seconds = time.perf_counter() - started
            out[name].update(logprobs=logprobs, real=real, fed=fed, projected=projected)
            out[name]["seconds"].append(seconds)
            print(f"  round {round_ + 1}: {name:<18} {seconds:7.2f} s", flush=True)
    return out


@dataclass(frozen=True)
class Limit:
    """What the machine and the model allow: matrix-multiply throughput, work per token and the minimum tokens."""

    gflops: float
    shape: str
    work: Work
    minimum: int
    """Each context once plus every choice token."""
    scored: int
    """Choice tokens: the positions whose prediction must be projected onto the vocabulary."""


def print_table(results: dict[str, dict[str, Any]], sizes: Sequence[int], golds: Sequence[int], limit: Limit) -> None:
    """One row per backend, lm-eval first; agreement and differences are against lm-eval; then the ceiling."""
    reference = results["lm-eval HFLM"]
    base_seconds = statistics.median(reference["seconds"])
    base_choices = choices(reference["logprobs"], sizes)
    n_items, minimum = len(sizes), limit.minimum
    print(
        f"\n{n_items} items, {sum(sizes)} requests; minimum tokens (each context once + every choice token): {minimum}"
    )
    print(
        f"{'backend':<18} {'median s':>8} {'runs (s)':>22} {'items/s':>8} {'x lm-eval':>9} {'real tok':>9} "
        f"{'fed+pad':>8} {'fed/min':>7} {'same choice':>12} {'max|dLL|':>9} {'acc':>5} {'tok/s':>6} "
        f"{'GFLOP/s':>7} {'of peak':>7}"
    )
    for name, result in results.items():
        seconds = statistics.median(result["seconds"])
        chosen = choices(result["logprobs"], sizes)
        same = sum(a == b for a, b in zip(chosen, base_choices, strict=True))
        diff = max(abs(a - b) for a, b in zip(result["logprobs"], reference["logprobs"], strict=True))
        accuracy = sum(c == g for c, g in zip(chosen, golds, strict=True)) / n_items
        real = "n/a" if result["real"] < 0 else str(result["real"])
        runs = "/".join(f"{s:.1f}" for s in result["seconds"])
        rate = limit.work.flops(result["fed"], result["projected"]) / seconds / 1e9
        print(
            f"{name:<18} {seconds:>8.2f} {runs:>22} {n_items / seconds:>8.2f} {base_seconds / seconds:>9.2f} "
            f"{real:>9} {result['fed']:>8} {result['fed'] / minimum:>7.2f} {f'{same}/{n_items}':>12} "
            f"{diff:>9.2e} {accuracy:>5.3f} {result['fed'] / seconds:>6.0f} {rate:>7.1f} {rate / limit.gflops:>7.0%}"
        )
    own = results["pfungst HFModel"]
    work = limit.work.flops(own["fed"], own["projected"])
    floor = work / limit.gflops / 1e9
    print(
        f"\nMeasured float32 matrix-multiply throughput: {limit.gflops:.1f} GFLOP/s (torch, {limit.shape}). "
        f"Work: {limit.work.per_token / 1e6:.0f} MFLOP per token fed plus {limit.work.per_projection / 1e6:.0f} "
        f"MFLOP per position projected onto the vocabulary. pfungst HFModel's work ({work / 1e9:.0f} GFLOP: "
        f"{own['fed']} tokens, {own['projected']} projections; the minimum is {minimum} tokens, "
        f"{limit.scored} projections) takes {floor:.2f} s at that throughput: at most "
        f"{base_seconds / floor:.1f}x lm-eval's {base_seconds:.2f} s in float32 arithmetic on this machine, "
        "before attention, normalisation and the rest."
    )


def main() -> None:
    """Parse arguments, load the three backends, run the interleaved rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--model-dir", default="/tmp/smollm2-hf", help="transformers folder (float32 SmolLM2)")
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=8, help="lm-eval's batch size")
    parser.add_argument("--hf-batch-size", type=int, default=None, help="HFModel's batch size (its default if unset)")
    parser.add_argument("--no-llamacpp", action="store_true", help="skip the llama.cpp rows")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("compare_lm_eval", TITLE, enabled=not args.no_record):
        import torch

        from pfungst.models.hf import HFModel

        torch.set_num_threads(args.threads)
        requests, sizes = build_requests(args.items)
        golds = [item.gold for item in list(pfungst.load(DATA))[: args.items]]
        hf_options = {"batch_size": args.hf_batch_size} if args.hf_batch_size else {}
        hf = HFModel(args.model_dir, n_threads=args.threads, **hf_options)
        config = hf._model.config
        throughput = matmul_gflops(config, args.threads)  # before the other models load
        scorers = {
            "lm-eval HFLM": lm_eval_scorer(args.model_dir, args.batch_size),
            "pfungst HFModel": pfungst_scorer(hf),
        }
        if not args.no_llamacpp:
            from pfungst.models.embedded import embedded_model_path
            from pfungst.models.llamacpp import LlamaCppModel

            llama = LlamaCppModel(embedded_model_path(), n_threads=args.threads)
            scorers["pfungst llama.cpp"] = pfungst_scorer(llama)
            f16 = LlamaCppModel(embedded_model_path(), n_threads=args.threads, weights="f16")
            scorers["llama.cpp f16"] = pfungst_scorer(f16)
        limit = Limit(*throughput, Work.of(config), *minimum_tokens(hf, requests))
        print(
            f"torch {torch.__version__}, {torch.get_num_threads()} threads; HFModel batch size {hf.batch_size}, "
            f"prefix sharing {hf.prefix_sharing}; lm-eval batch size {args.batch_size}"
        )
        print_table(run(scorers, requests, args.runs), sizes, golds, limit)


if __name__ == "__main__":
    main()
