"""Hostile Kafka clients, for test/t/035_kafka_hostile.pl.

    hostile.py HOST:PORT COMMAND [ARGS...]

Each command prints one JSON document: what the server did.
"""
import json
import os
import resource
import socket
import struct
import sys
import time


def connect(addr):
    host, port = addr.rsplit(':', 1)
    return socket.create_connection((host, int(port)), timeout=10)


def closed_within(sock, seconds):
    """Does the server close sock within seconds (reading nothing)?"""
    sock.settimeout(seconds)
    try:
        return sock.recv(1) == b''
    except socket.timeout:
        return False
    except ConnectionResetError:
        return True


def request(sock, key, version, corr, body):
    payload = struct.pack('>hhih', key, version, corr, 7) + b'hostile' + body
    sock.sendall(struct.pack('>i', len(payload)) + payload)
    n = struct.unpack('>i', read_exactly(sock, 4))[0]
    return read_exactly(sock, n)[4:]


def read_exactly(sock, n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError('closed')
        data += chunk
    return data


def api_versions_ok(addr):
    s = connect(addr)
    body = request(s, 18, 0, 1, b'')
    s.close()
    return struct.unpack('>h', body[:2])[0] == 0


def slowloris(addr, wait):
    """Half a frame, then nothing: closed after the timeout?"""
    s = connect(addr)
    s.sendall(b'\x00\x00')
    t0 = time.time()
    closed = closed_within(s, float(wait))
    return {'closed': closed, 'after': round(time.time() - t0, 1),
            'others_served': api_versions_ok(addr)}


def idle(addr, wait):
    """A connection that sends nothing: closed after the idle timeout?"""
    s = connect(addr)
    t0 = time.time()
    closed = closed_within(s, float(wait))
    return {'closed': closed, 'after': round(time.time() - t0, 1)}


def flood(addr, count, hold):
    """count connections at once: how many the server keeps, and whether a
    new client is served while they are held and after they go"""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    socks = []
    for _ in range(int(count)):
        try:
            socks.append(connect(addr))
        except OSError:
            break
    time.sleep(float(hold))
    kept = 0
    for s in socks:
        s.setblocking(False)
        try:
            kept += 0 if s.recv(1) == b'' else 1
        except BlockingIOError:
            kept += 1
        except OSError:
            pass
    served_during = False
    try:
        served_during = api_versions_ok(addr)
    except OSError:
        pass
    for s in socks:
        s.close()
    # the listeners see the closes at their own pace: a busy machine may
    # take a while, so a new client tries for up to 30 s
    served_after = False
    deadline = time.time() + 30
    while not served_after and time.time() < deadline:
        time.sleep(0.5)
        try:
            served_after = api_versions_ok(addr)
        except OSError:
            pass
    return {'opened': len(socks), 'kept': kept, 'served_during': served_during,
            'served_after': served_after}


def garbage(addr):
    """Frames that are not requests: each closes its connection"""
    cases = {
        'size_2gb': struct.pack('>i', 0x7fffffff),
        'size_negative': struct.pack('>i', -5),
        'random': os.urandom(4096),
        'short_header': struct.pack('>i', 2) + b'\x00\x12',
        'bad_array': struct.pack('>i', 14) + struct.pack('>hhih', 3, 1, 1, -1) + struct.pack('>i', 0x7fffffff),
    }
    out = {}
    for name, data in cases.items():
        s = connect(addr)
        try:
            s.sendall(data)
        except OSError:
            pass
        out[name] = closed_within(s, 5)
    out['others_served'] = api_versions_ok(addr)
    return out


def bomb(addr, topic, inflated_mb):
    """A gzip batch that inflates to inflated_mb MB: refused with
    MESSAGE_TOO_LARGE, not stored, and the server goes on"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(2, 1, False, -1, -1, -1, 1 << 30)
    b.append(0, timestamp=None, key=None, value=b'\0' * (int(inflated_mb) << 20), headers=[])
    records = bytes(b.build())
    name = topic.encode()
    req = (struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1)
           + struct.pack('>h', len(name)) + name + struct.pack('>i', 1)
           + struct.pack('>i', 0) + struct.pack('>i', len(records)) + records)
    s = connect(addr)
    body = request(s, 0, 3, 9, req)
    off = 4 + 2 + len(name) + 4
    partition, error = struct.unpack('>ih', body[off:off + 6])
    s.close()
    return {'compressed_bytes': len(records), 'error': error,
            'others_served': api_versions_ok(addr)}


def truncated_produce(addr, topic):
    """A Produce whose first partition is whole and whose second is cut
    short: the connection is closed, and the first is not stored"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    b.append(0, timestamp=None, key=None, value=b'truncated', headers=[])
    records = bytes(b.build())
    name = topic.encode()
    req = (struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1)
           + struct.pack('>h', len(name)) + name + struct.pack('>i', 2)
           + struct.pack('>i', 0) + struct.pack('>i', len(records)) + records
           + struct.pack('>i', 0) + struct.pack('>i', 1000) + b'short')
    payload = struct.pack('>hhih', 0, 3, 10, 7) + b'hostile' + req
    s = connect(addr)
    s.sendall(struct.pack('>i', len(payload)) + payload)
    return {'closed': closed_within(s, 5), 'others_served': api_versions_ok(addr)}


COMMANDS = {f.__name__: f for f in (slowloris, idle, flood, garbage, bomb,
                                    truncated_produce)}

if __name__ == '__main__':
    addr, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](addr, *args)))
