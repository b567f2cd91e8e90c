"""Metadata requests by hand, for test/t/049_kafka_auto_create.pl: what the
listener answers for each topic a request names, and what many connections
asking at once for the same new topics get.

    auto_create.py BOOTSTRAP metadata VERSION ALLOW TOPIC...
    auto_create.py BOOTSTRAP concurrent CONNECTIONS TOPIC...

Each command prints one JSON document on stdout.
"""
import json
import socket
import struct
import sys
import threading
import time


def _connect(bootstrap):
    host, port = bootstrap.rsplit(':', 1)
    return socket.create_connection((host, int(port)), timeout=60)


def _read(sock, n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError('connection closed')
        data += chunk
    return data


def _request(sock, version, corr, topics, allow):
    """Send Metadata (v0-4) naming topics; the response body"""
    body = struct.pack('>i', len(topics))
    for t in topics:
        name = t.encode()
        body += struct.pack('>h', len(name)) + name
    if version >= 4:
        body += struct.pack('>b', 1 if allow else 0)
    payload = struct.pack('>hhih', 3, version, corr, 3) + b'raw' + body
    sock.sendall(struct.pack('>i', len(payload)) + payload)
    n = struct.unpack('>i', _read(sock, 4))[0]
    data = _read(sock, n)
    got = struct.unpack('>i', data[:4])[0]
    if got != corr:
        raise ValueError('correlation id %d, expected %d' % (got, corr))
    return data[4:]


class _Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return v[0]

    def string(self):
        n = self.take('>h')
        if n < 0:
            return None
        s = self.data[self.at:self.at + n].decode()
        self.at += n
        return s


def _topics(version, body):
    """{topic: [error, partition count]} of a Metadata v0-4 response"""
    r = _Reader(body)
    if version >= 3:
        r.take('>i')                    # throttle_time_ms
    for _ in range(r.take('>i')):       # brokers
        r.take('>i')
        r.string()
        r.take('>i')
        if version >= 1:
            r.string()                  # rack
    if version >= 2:
        r.string()                      # cluster_id
    if version >= 1:
        r.take('>i')                    # controller_id
    out = {}
    for _ in range(r.take('>i')):
        error = r.take('>h')
        name = r.string()
        if version >= 1:
            r.take('>b')                # is_internal
        nparts = r.take('>i')
        for _ in range(nparts):
            r.take('>h')
            r.take('>i')
            r.take('>i')
            for _ in range(r.take('>i')):
                r.take('>i')
            for _ in range(r.take('>i')):
                r.take('>i')
        out[name] = [error, nparts]
    return out


def metadata(bootstrap, version, allow, *topics):
    """One Metadata request of that version (ALLOW: allow_auto_topic_creation,
    sent from v4): {topic: [error, partition count]}"""
    version = int(version)
    sock = _connect(bootstrap)
    try:
        return _topics(version, _request(sock, version, 1, list(topics),
                                         allow == 'true'))
    finally:
        sock.close()


def concurrent(bootstrap, connections, *topics):
    """CONNECTIONS connections, each sending Metadata v4 for all of topics at
    the same moment, then asking again until each has every topic's
    partitions: {"errors": the error codes of every answer, sorted and
    counted, "partitions": {topic: the partition counts seen at the end}}"""
    n = int(connections)
    socks = []
    for _ in range(n):
        # one at a time, so that every listener process accepts some
        socks.append(_connect(bootstrap))
        time.sleep(0.05)
    start = threading.Barrier(n)
    errors = {}
    final = {}
    lock = threading.Lock()

    def ask(i):
        corr = 1
        start.wait()
        for _ in range(100):
            answer = _topics(4, _request(socks[i], 4, corr, list(topics), True))
            corr += 1
            with lock:
                for t, (err, nparts) in answer.items():
                    errors[err] = errors.get(err, 0) + 1
            if all(err == 0 for err, _ in answer.values()):
                with lock:
                    for t, (err, nparts) in answer.items():
                        final.setdefault(t, []).append(nparts)
                return
            time.sleep(0.05)
    threads = [threading.Thread(target=ask, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for s in socks:
        s.close()
    return {'errors': {str(k): v for k, v in sorted(errors.items())},
            'partitions': {t: sorted(set(v)) for t, v in sorted(final.items())},
            'answered': sum(len(v) for v in final.values())}


COMMANDS = {f.__name__: f for f in (metadata, concurrent)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
