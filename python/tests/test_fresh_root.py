"""`make run` on a fresh Debian root (python -m cairn.bench.fresh_root): its parts that need no
root, no mirror and no minutes — the proxy's byte counts, bootstrap's step times, the STATUS line."""

from __future__ import annotations

import json
import socket
import threading
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from cairn.bench import status
from cairn.bench.counting_proxy import CountingProxy
from cairn.bench.fresh_root import step_durations

PAYLOAD = bytes(range(256)) * 1000


class _Payload(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", str(len(PAYLOAD)))
        self.end_headers()
        self.wfile.write(PAYLOAD)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[int]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Payload)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()


def test_plain_http_through_the_proxy_is_counted_for_its_host(server: int) -> None:
    with CountingProxy() as proxy:
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({"http": proxy.url}))
        with opener.open(f"http://127.0.0.1:{server}/x", timeout=10) as reply:
            body = reply.read()
    assert body == PAYLOAD
    # The body and the response head: more than the payload, by less than a head's size.
    assert len(PAYLOAD) < proxy.downloaded["127.0.0.1"] < len(PAYLOAD) + 1000
    assert proxy.uploaded["127.0.0.1"] > 0


def test_a_connect_tunnel_is_counted_for_its_host(server: int) -> None:
    with CountingProxy() as proxy, socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
        s.sendall(f"CONNECT localhost:{server} HTTP/1.1\r\n\r\n".encode())
        assert s.recv(4096).startswith(b"HTTP/1.1 200")
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        received = b""
        while chunk := s.recv(65536):
            received += chunk
    assert received.endswith(PAYLOAD)
    assert proxy.downloaded["localhost"] == len(received)


def test_an_unreachable_host_gets_a_bad_gateway() -> None:
    with CountingProxy() as proxy, socket.create_connection(("127.0.0.1", proxy.port), timeout=10) as s:
        s.sendall(b"CONNECT 127.0.0.1:1 HTTP/1.1\r\n\r\n")
        assert s.recv(4096).startswith(b"HTTP/1.1 502")


def test_bootstrap_step_times_end_at_each_steps_own_line() -> None:
    lines = [(0.5, "bootstrap: apt            installing: make"), (0.6, "debconf: noise"),
             (90.0, "bootstrap: apt            installed: make"), (130.0, "bootstrap: rust  installed"),
             (131.0, "bootstrap: venv created"), (171.5, "bootstrap: requirements installed")]
    assert step_durations(lines, 0.0) == {"apt": 90.0, "rust": 40.0, "venv": 1.0, "requirements": 40.5}


FIGURES = {
    "release": "bookworm", "root": "mmdebstrap --variant=minbase --include=make", "root_seconds": 120.5,
    "seconds": 412.3, "steps": {"bootstrap": 250.1, "build": 140.2, "run": 22.0},
    "bootstrap_steps": {"apt": 150.0, "rust": 60.0, "venv": 0.4, "requirements": 39.7},
    "cpu_seconds": 388.5, "exit_status": 0, "target_seconds": 300.0, "met": False, "bytes_downloaded": 812_000_000,
    "bytes_downloaded_by_host": {"deb.debian.org": 600_000_000, "static.rust-lang.org": 150_000_000,
                                 "tiny.example": 10},
    "nice": 19, "load_average_1min_before": 0.5, "load_average_1min_after": 1.75, "cores": 2,
}  # fmt: skip


def test_status_block_renders_the_fresh_root_figures(tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    bench.mkdir()
    (bench / "fresh-run-scratch.json").write_text(json.dumps(FIGURES))
    doc = tmp_path / "STATUS.md"
    doc.write_text("\n".join(["# Status", status.BEGIN, "- `make run` on a fresh Debian root (stale)",
                              status.END, ""]))
    assert status.main(["--bench-dir", str(bench), "--status", str(doc)]) == 0
    (line,) = [x for x in doc.read_text().splitlines() if x.startswith("- `make run` on a fresh Debian root")]
    for value in ("bookworm minbase", "**412.3 s**", "bootstrap 250.1 s [apt 150.0 s, rust 60.0 s, requirements 39.7 s]",
                  "build 140.2 s", "388.5 CPU seconds", "target ≤ 300 s: not met", "**812 MB**", "deb.debian.org 600 MB",
                  "static.rust-lang.org 150 MB", "120.5 s", "1.75 after", "2 cores"):
        assert value in line, line
    assert "tiny.example" not in line and "venv 0.4" not in line
