"""An HTTP proxy that counts the bytes each host sends, for the downloads of a fresh install.

A chroot shares the machine's network, so the interface counters also count every other
process on it; what passes through this proxy is the chroot's alone. apt, curl, rustup, cargo
and pip all honour ``http_proxy``/``https_proxy``: HTTPS goes through ``CONNECT`` as an opaque
tunnel (the bytes counted include TLS's), plain HTTP (apt's mirror) is forwarded as sent, in
the absolute form every HTTP/1.1 server accepts.
"""

from __future__ import annotations

import socket
import threading
from collections import Counter
from urllib.parse import urlsplit

#: The longest request head the proxy reads before giving up on a client.
MAX_HEAD = 64 * 1024


class CountingProxy:
    """Listens on 127.0.0.1; ``downloaded`` holds the bytes received from each host."""

    def __init__(self) -> None:
        self.downloaded: Counter[str] = Counter()
        self.uploaded: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._server.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> CountingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        with client:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk or len(head) > MAX_HEAD:
                    return
                head += chunk
            method, target = head.split(b" ", 2)[:2]
            if method == b"CONNECT":
                host, _, port = target.decode().rpartition(":")
                first = b""
            else:
                parts = urlsplit(target.decode())
                host, port, first = parts.hostname or "", str(parts.port or 80), head
            try:
                upstream = socket.create_connection((host, int(port)), timeout=60)
            except OSError:
                client.sendall(b"HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n")
                return
            with upstream:
                upstream.settimeout(None)
                if first:
                    upstream.sendall(first)
                    self._count(self.uploaded, host, len(first))
                else:
                    client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                back = threading.Thread(target=self._pipe, args=(upstream, client, self.downloaded, host),
                                        daemon=True)
                back.start()
                self._pipe(client, upstream, self.uploaded, host)
                back.join()

    def _pipe(self, src: socket.socket, dst: socket.socket, counter: Counter[str], host: str) -> None:
        try:
            while chunk := src.recv(65536):
                dst.sendall(chunk)
                self._count(counter, host, len(chunk))
        except OSError:
            pass
        finally:
            try:
                dst.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _count(self, counter: Counter[str], host: str, n: int) -> None:
        with self._lock:
            counter[host] += n
