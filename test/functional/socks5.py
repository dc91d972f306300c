"""A SOCKS5 server for the tests (RFC 1928, RFC 1929), on loopback, standard library only.

It records every CONNECT request (address type, host, port, the credentials offered) and
relays to a destination chosen by the test: `route(host, port)` returns (ip, port) to
connect to, or None to refuse with "host unreachable" (code 4), as Tor answers for an
onion service it cannot reach.
"""

import socket
import struct
import threading


class Socks5Server:
    def __init__(self, route=None):
        self.route = route or (lambda host, port: (host, port))
        self.requests = []  # dicts: atyp, host, port, user, password
        self.lock = threading.Lock()
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        from framework import free_port  # not the kernel's pick: it may be a node's port
        self.sock.bind(("127.0.0.1", free_port()))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    def close(self):
        self.closed = True
        self.sock.close()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    @staticmethod
    def _read(conn, n):
        data = b""
        while len(data) < n:
            chunk = conn.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    def _serve(self, conn):
        try:
            ver, nmethods = self._read(conn, 2)
            methods = self._read(conn, nmethods)
            user = password = None
            if 2 in methods:
                conn.sendall(b"\x05\x02")
                _, ulen = self._read(conn, 2)
                user = self._read(conn, ulen).decode()
                plen = self._read(conn, 1)[0]
                password = self._read(conn, plen).decode()
                conn.sendall(b"\x01\x00")
            else:
                conn.sendall(b"\x05\x00")
            ver, cmd, _, atyp = self._read(conn, 4)
            if atyp == 1:
                host = socket.inet_ntop(socket.AF_INET, self._read(conn, 4))
            elif atyp == 4:
                host = socket.inet_ntop(socket.AF_INET6, self._read(conn, 16))
            else:
                host = self._read(conn, self._read(conn, 1)[0]).decode()
            port = struct.unpack(">H", self._read(conn, 2))[0]
            with self.lock:
                self.requests.append({"atyp": atyp, "host": host, "port": port, "user": user,
                                      "password": password})
            dest = self.route(host, port)
            if dest is None:
                conn.sendall(b"\x05\x04\x00\x01" + b"\x00" * 6)
                conn.close()
                return
            upstream = socket.create_connection(dest, timeout=10)
            conn.sendall(b"\x05\x00\x00\x01" + socket.inet_aton("127.0.0.1") +
                         struct.pack(">H", 0))
        except (OSError, ConnectionError, ValueError):
            conn.close()
            return
        for a, b in ((conn, upstream), (upstream, conn)):
            threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
