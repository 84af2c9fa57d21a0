"""The inspect_ai round trip for real: ``inspect eval pfungst/arrangements`` against ``python -m llama_cpp.server``
on the embedded SmolLM2 through inspect's OpenAI-compatible provider, then the log read back by pfungst.

Run: .venv/bin/python benchmarks/inspect_roundtrip.py [--data FILE] [--limit 10] [--perturbations cyclic]
Needs ``pip install -e '.[inspect,server]' openai`` (pfungst installed, so that inspect finds its ``inspect_ai``
entry point). Starts the server on a free local port, runs inspect's own command line, and prints the metrics inspect
wrote in its log beside pfungst's figures from the same log; exits 1 if any differs.
"""

from __future__ import annotations

import argparse
import math
import os
import socket
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import httpx
from results_file import add_record_option, recording

from pfungst.integrations.inspect_log import read_inspect_log
from pfungst.models.embedded import embedded_model_path

TITLE = "inspect_ai round trip against llama-cpp-python's server"
"""This script's section title in benchmarks/RESULTS.md."""

ARC = (Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "arc" / "ARC-Challenge-Test.jsonl").resolve()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server(port: int, log: object) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(embedded_model_path()), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", "2048", "--verbose", "False"]
    process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)  # type: ignore[arg-type]
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=1.0).status_code == 200:
                return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.kill()
    raise SystemExit("llama_cpp.server did not start")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", default=str(ARC), help="a benchmark pfungst reads (default: ARC-Challenge test)")
    parser.add_argument("--limit", type=int, default=10, help="items (each asked in every arrangement)")
    parser.add_argument("--perturbations", default="cyclic", help="comma-separated arrangements")
    parser.add_argument("--solver", default="pfungst_answer", help="pfungst_answer or multiple_choice")
    parser.add_argument("--max-tokens", type=int, default=4, help="tokens generated per answer")
    add_record_option(parser)
    args = parser.parse_args()
    with recording("inspect_roundtrip", TITLE, enabled=not args.no_record):
        if not any(point.name == "pfungst" for point in metadata.entry_points(group="inspect_ai")):
            raise SystemExit("inspect cannot find pfungst's entry point: pip install -e '.[inspect]' first")
        port = _free_port()
        with tempfile.TemporaryDirectory() as folder, (Path(folder) / "server.log").open("wb") as server_log:
            server = _server(port, server_log)
            try:
                environment = {**os.environ, "LLAMACPP_BASE_URL": f"http://127.0.0.1:{port}/v1"}
                environment["LLAMACPP_API_KEY"] = "none"  # the local server checks no key, but the provider needs one
                command = [str(Path(sys.executable).with_name("inspect")), "eval", "pfungst/arrangements"]
                command += ["-T", f"data={args.data}", "-T", f"limit={args.limit}"]
                command += ["-T", f"perturbations={args.perturbations}", "-T", f"solver={args.solver}"]
                command += ["--model", "openai-api/llamacpp/smollm2", "--max-tokens", str(args.max_tokens)]
                command += ["--temperature", "0", "--log-dir", folder, "--display", "plain"]
                print("$", " ".join(command), file=sys.stderr)
                start = time.perf_counter()
                subprocess.run(command, env=environment, check=True, stdout=subprocess.DEVNULL)
                seconds = time.perf_counter() - start
            finally:
                server.terminate()
                server.wait(timeout=10)
            (log_path,) = Path(folder).glob("*.eval")
            log = read_inspect_log(log_path)
            figures = log.figures(seed=0).values()
        print(f"{log.task} on {log.model}: {len(log.outcomes)} arranged samples in {seconds:.0f} s")
        print(f"{'figure':28} {'inspect log':>12} {'pfungst':>12}")
        differ = []
        for name, value in figures.items():
            logged = log.metrics.get(name, math.nan)
            same = math.isclose(logged, value, rel_tol=1e-12, abs_tol=1e-12) or (
                math.isnan(logged) and math.isnan(value)
            )
            differ += [] if same else [name]
            print(f"{name:28} {logged:12.4f} {value:12.4f}")
        print("all equal" if not differ else f"DIFFER: {', '.join(differ)}")
        raise SystemExit(1 if differ else 0)


if __name__ == "__main__":
    main()
