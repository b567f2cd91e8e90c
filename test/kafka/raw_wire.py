"""What the scripts that write Kafka requests byte by byte share
(versions.py, group_apis.py, message_formats.py, admin_apis.py): a
connection to the listener, exact reads, and Kafka's unsigned varint."""
import socket


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
