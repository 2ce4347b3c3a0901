"""A raw HTTP endpoint that is no good MCP server (no SDK: it misbehaves at the HTTP level).

``python live_http_hostile.py PORT MODE [--marker M]``; every request gets the MODE's answer:
  500        500 Internal Server Error with a JSON body echoing the Authorization header
  html       200 text/html page
  redirect   307 to another host (http://127.0.0.2:PORT/elsewhere?token=...)
  401        401 with a WWW-Authenticate challenge
  silent     accepts the connection, reads the request, never sends a byte
  slowloris  sends the status line, then one header byte every second, forever
  drip       valid headers for an SSE/JSON answer, then one body byte every second
"""

from __future__ import annotations

import socket
import sys
import threading
import time


def read_request(conn: socket.socket) -> bytes:
    data = b""
    conn.settimeout(10)
    try:
        while b"\r\n\r\n" not in data:
            chunk = conn.recv(65536)
            if not chunk:
                return data
            data += chunk
        head, _, body = data.partition(b"\r\n\r\n")
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip() or 0)
        while len(body) < length:
            chunk = conn.recv(65536)
            if not chunk:
                break
            body += chunk
        return head + b"\r\n\r\n" + body
    except OSError:
        return data


def header(request: bytes, name: bytes) -> bytes:
    for line in request.split(b"\r\n")[1:]:
        key, _, value = line.partition(b":")
        if key.strip().lower() == name:
            return value.strip()
    return b""


def respond(conn: socket.socket, status: str, headers: dict, body: bytes) -> None:
    lines = [f"HTTP/1.1 {status}"] + [f"{k}: {v}" for k, v in headers.items()]
    lines.append(f"Content-Length: {len(body)}")
    lines.append("Connection: close")  # one answer per connection: no reuse race
    conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode() + body)


def serve(conn: socket.socket, mode: str, port: int) -> None:
    with conn:
        request = read_request(conn)
        try:
            if mode == "500":
                auth = header(request, b"authorization").decode("latin-1")
                body = ('{"error": "boom", "seen_auth": "' + auth
                        + '", "trace": "Traceback ..."}').encode()
                respond(conn, "500 Internal Server Error", {"Content-Type": "application/json"},
                        body)
            elif mode == "html":
                respond(conn, "200 OK", {"Content-Type": "text/html"},
                        b"<html><body><h1>Welcome to nginx!</h1>" + b"x" * 5000 + b"</body></html>")
            elif mode == "redirect":
                respond(conn, "307 Temporary Redirect", {
                    "Location": f"http://127.0.0.2:{port}/elsewhere?token=redirsecret123456"}, b"")
            elif mode == "401":
                respond(conn, "401 Unauthorized",
                        {"WWW-Authenticate": 'Bearer realm="mcp"', "Content-Type": "text/plain"},
                        b"bad token")
            elif mode == "silent":
                time.sleep(3600)
            elif mode == "slowloris":
                conn.sendall(b"HTTP/1.1 200 OK\r\n")
                while True:
                    conn.sendall(b"X")
                    time.sleep(1)
            elif mode == "drip":
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                             b"Content-Length: 100000\r\n\r\n")
                while True:
                    conn.sendall(b" ")
                    time.sleep(1)
        except OSError:
            pass


def main() -> None:
    port, mode = int(sys.argv[1]), sys.argv[2]
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(64)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, mode, port), daemon=True).start()


if __name__ == "__main__":
    main()
