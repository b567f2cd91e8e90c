"""Kafka requests written byte by byte, for the test scripts that build
them by hand (versions.py, group_apis.py, message_formats.py,
admin_apis.py, protocol.py, hostile.py): a connection to the listener,
exact reads, the body's encodings (Enc: plain, or flexible with compact
lengths and tagged fields), the request header (v1, or v2 with its empty
tagged fields in a flexible version) and frame, a request sent with its
answer read back, the answer's reader (Dec), and SASL PLAIN on a raw
connection."""
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


class Dec:
    """An answer body's reader, field by field: flexible versions have
    compact strings, bytes and arrays and tagged fields, the others int16
    and int32 lengths.  A null string, bytes or array is None."""

    def __init__(self, data, flexible):
        self.data = data
        self.pos = 0
        self.flexible = flexible

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0]

    def i8(self):
        return self.take('>b')

    def i16(self):
        return self.take('>h')

    def i32(self):
        return self.take('>i')

    def i64(self):
        return self.take('>q')

    def uvarint(self):
        shift = n = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            n |= (b & 0x7f) << shift
            if not b & 0x80:
                return n
            shift += 7

    def string(self):
        """A string, its invalid UTF-8 (if any) replaced"""
        b = self.raw_string()
        return b.decode('utf-8', 'replace') if b is not None else None

    def raw_string(self):
        """A string's bytes as they came"""
        n = self.uvarint() - 1 if self.flexible else self.i16()
        if n < 0:
            return None
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def bytes(self):
        n = self.uvarint() - 1 if self.flexible else self.i32()
        if n < 0:
            return None
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def array(self, decode):
        n = self.uvarint() - 1 if self.flexible else self.i32()
        if n < 0:
            return None
        return [decode() for _ in range(n)]

    def tags(self):
        if self.flexible:
            for _ in range(self.uvarint()):
                self.uvarint()
                self.pos += self.uvarint()

    def done(self):
        """The whole answer was read"""
        if self.pos != len(self.data):
            raise Exception('%d bytes left after the answer'
                            % (len(self.data) - self.pos))


def sasl_plain(sock, user, password, client_id, corr=1):
    """SaslHandshake v1 for PLAIN and SaslAuthenticate v0 (correlation ids
    corr and corr + 1) as user; raises if refused"""
    body = call(sock, 17, 1, corr, Enc(False).string('PLAIN'), client_id)
    if struct.unpack('>h', body[:2])[0] != 0:
        raise Exception('SaslHandshake refused PLAIN')
    token = b'\0' + user.encode() + b'\0' + password.encode()
    body = call(sock, 36, 0, corr + 1, struct.pack('>i', len(token)) + token,
                client_id)
    if struct.unpack('>h', body[:2])[0] != 0:
        raise Exception('SASL PLAIN failed for %s' % user)
