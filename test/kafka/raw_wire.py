"""Kafka requests written byte by byte, for the test scripts that build
them by hand (versions.py, group_apis.py, message_formats.py,
admin_apis.py, protocol.py, hostile.py): a connection to the listener,
exact reads, the body's encodings (Enc: plain, or flexible with compact
lengths and tagged fields), the request header (v1, or v2 with its empty
tagged fields in a flexible version) and frame, and a request sent with its
answer read back.  Answers are read by each script's own reader: what they
check differs."""
import socket
import struct


def connect(bootstrap, timeout=30):
    host, port = bootstrap.rsplit(':', 1)
    return socket.create_connection((host, int(port)), timeout=timeout)


def read_exactly(sock, n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError('the server closed the connection')
        data += chunk
    return data


def uvarint(n):
    out = b''
    while n >= 0x80:
        out += bytes([(n & 0x7f) | 0x80])
        n >>= 7
    return out + bytes([n])


class Enc:
    """A request body's encoder.  Flexible versions have compact strings,
    bytes and arrays (unsigned varint length + 1, 0 for null) and tagged
    fields; the others int16 (strings) and int32 (bytes, arrays) lengths,
    -1 for null."""

    def __init__(self, flexible=False):
        self.flexible = flexible

    @staticmethod
    def int8(v):
        return struct.pack('>b', v)

    @staticmethod
    def int16(v):
        return struct.pack('>h', v)

    @staticmethod
    def int32(v):
        return struct.pack('>i', v)

    @staticmethod
    def int64(v):
        return struct.pack('>q', v)

    def string(self, s):
        """A string (str as UTF-8, or bytes as they are), None: null"""
        if s is None:
            return uvarint(0) if self.flexible else struct.pack('>h', -1)
        b = s if isinstance(s, bytes) else s.encode()
        if self.flexible:
            return uvarint(len(b) + 1) + b
        return struct.pack('>h', len(b)) + b

    def bytes(self, b):
        """Bytes, None: null"""
        if b is None:
            return uvarint(0) if self.flexible else struct.pack('>i', -1)
        if self.flexible:
            return uvarint(len(b) + 1) + b
        return struct.pack('>i', len(b)) + b

    def array(self, items, encode=None):
        """An array of items, each written by encode (without: items are
        already bytes), None: null"""
        if items is None:
            return uvarint(0) if self.flexible else struct.pack('>i', -1)
        head = (uvarint(len(items) + 1) if self.flexible
                else struct.pack('>i', len(items)))
        return head + b''.join(encode(x) if encode else x for x in items)

    def tags(self):
        """No tagged fields (flexible versions only)"""
        return uvarint(0) if self.flexible else b''


def header(key, version, corr, client_id, flexible=False):
    """Request header v1 (key, version, correlation id, client id), v2 in
    a flexible version (and its tagged fields, none)"""
    client = client_id if isinstance(client_id, bytes) else client_id.encode()
    out = struct.pack('>hhih', key, version, corr, len(client)) + client
    return out + (uvarint(0) if flexible else b'')


def frame(key, version, corr, body, client_id, flexible=False):
    """A request as sent: its size, header and body"""
    payload = header(key, version, corr, client_id, flexible) + body
    return struct.pack('>i', len(payload)) + payload


def read_frame(sock):
    """The next answer: its bytes after its size (the correlation id
    first)"""
    n = struct.unpack('>i', read_exactly(sock, 4))[0]
    return read_exactly(sock, n)


def call(sock, key, version, corr, body, client_id, flexible=False):
    """One request, answered: the answer after its correlation id (which
    must be the request's); the response header's tagged fields, if any,
    are the caller's to read"""
    sock.sendall(frame(key, version, corr, body, client_id, flexible))
    data = read_frame(sock)
    assert struct.unpack('>i', data[:4])[0] == corr
    return data[4:]
