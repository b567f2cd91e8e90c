#!/usr/bin/python3
# Test vectors from librdkafka (Debian's python3-confluent-kafka): a
# broker that knows just enough of the protocol (ApiVersions, Metadata,
# Produce) takes what a librdkafka producer sends, once per codec, and
# writes each Produce request's records as a .vec file (the format is in
# kafka_python.py) and as a seed of the fuzzer's corpus.
#
#   librdkafka_vectors.py VECTORS_DIR CORPUS_DIR
#
# Run with Debian's /usr/bin/python3.

import os
import socket
import struct
import sys
import threading

from confluent_kafka import Producer, libversion

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_python import write_vec                     # noqa: E402

TOPIC = 'vectors'

# ApiVersions: what librdkafka needs to see to write batches of magic 2
# with every codec (Produce 7 and Fetch 10 for zstd, FindCoordinator for lz4)
APIS = [(0, 0, 7), (1, 0, 11), (3, 0, 1), (10, 0, 2), (18, 0, 3)]


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0]

    def string(self):
        n = self.take('>h')
        s = self.data[self.pos:self.pos + max(n, 0)]
        self.pos += max(n, 0)
        return s

    def bytes(self):
        n = self.take('>i')
        s = self.data[self.pos:self.pos + max(n, 0)]
        self.pos += max(n, 0)
        return s


def string(s):
    return struct.pack('>h', len(s)) + s


def serve(conn, port, captured):
    """answer one connection until it closes"""
    buf = b''
    while True:
        while len(buf) < 4 or len(buf) < 4 + struct.unpack_from('>i', buf)[0]:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buf += chunk
        size = struct.unpack_from('>i', buf)[0]
        r = Reader(buf[4:4 + size])
        buf = buf[4 + size:]
        api, version, correlation = r.take('>h'), r.take('>h'), r.take('>i')
        r.string()                                      # client id
        if api == 18:
            body = struct.pack('>h', 0)
            if version >= 3:
                body += bytes([len(APIS) + 1])
                for key, lo, hi in APIS:
                    body += struct.pack('>hhh', key, lo, hi) + b'\0'
                body += struct.pack('>i', 0) + b'\0'
            else:
                body += struct.pack('>i', len(APIS))
                for key, lo, hi in APIS:
                    body += struct.pack('>hhh', key, lo, hi)
                if version >= 1:
                    body += struct.pack('>i', 0)
        elif api == 3:
            body = struct.pack('>i', 1) + struct.pack('>i', 0) + string(b'127.0.0.1') + \
                struct.pack('>ih', port, -1)
            body += struct.pack('>i', 0)                # controller
            body += struct.pack('>i', 1) + struct.pack('>h', 0) + string(TOPIC.encode()) + b'\0'
            body += struct.pack('>i', 1) + struct.pack('>hii', 0, 0, 0) + \
                struct.pack('>ii', 1, 0) + struct.pack('>ii', 1, 0)
        elif api == 0:
            r.string()                                  # transactional id
            r.take('>h')
            r.take('>i')
            responses = b''
            ntopics = r.take('>i')
            for _ in range(ntopics):
                name = r.string()
                nparts = r.take('>i')
                parts = b''
                for _ in range(nparts):
                    index = r.take('>i')
                    captured.append(r.bytes())
                    parts += struct.pack('>ihqq', index, 0, 0, -1)
                    if version >= 5:
                        parts += struct.pack('>q', 0)
                responses += string(name) + struct.pack('>i', nparts) + parts
            body = struct.pack('>i', ntopics) + responses + struct.pack('>i', 0)
        else:
            raise SystemExit('librdkafka_vectors.py: unexpected request %d v%d' % (api, version))
        conn.sendall(struct.pack('>ii', 4 + len(body), correlation) + body)


def records():
    ts = 1700000000000
    out = []
    for i in range(60):
        key = None if i % 7 == 0 else b'key-%d' % i
        value = None if i % 11 == 5 else (b'' if i % 13 == 0 else b'value %d; ' % i * (i % 9 + 1))
        headers = [('n', b'%d' % i), ('dup', None), ('dup', b'')] if i % 4 == 1 else []
        out.append((i, ts + i * 3 - (50 if i == 7 else 0), key, value, headers))
    return out


def main(vectors, corpus):
    os.makedirs(vectors, exist_ok=True)
    os.makedirs(corpus, exist_ok=True)
    listener = socket.socket()
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(('127.0.0.1', 0))
    listener.listen(8)
    port = listener.getsockname()[1]
    captured = []

    def accept():
        while True:
            conn, _ = listener.accept()
            threading.Thread(target=serve, args=(conn, port, captured), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    recs = records()
    for codec in ('none', 'gzip', 'snappy', 'lz4', 'zstd'):
        # librdkafka may split the records (it sends what it has when the
        # partition's leader becomes known), and sends a batch that does not
        # shrink uncompressed: try again until one batch holds them all
        for attempt in range(10):
            del captured[:]
            p = Producer({'bootstrap.servers': '127.0.0.1:%d' % port,
                          'compression.codec': codec, 'linger.ms': 500,
                          'enable.idempotence': False, 'acks': 1})
            for offset, ts, key, value, headers in recs:
                p.produce(TOPIC, value=value, key=key, partition=0, timestamp=ts,
                          headers=headers or None)
            assert p.flush(20) == 0, 'librdkafka did not deliver'
            if len(captured) == 1:
                break
        data = captured[0]
        count = struct.unpack_from('>i', data, 57)[0]
        attributes = struct.unpack_from('>h', data, 21)[0]
        assert len(captured) == 1 and count == len(recs), 'the records in one batch'
        assert len(data) == 12 + struct.unpack_from('>i', data, 8)[0], 'one batch'
        assert attributes & 7 == ('none', 'gzip', 'snappy', 'lz4', 'zstd').index(codec)
        name = 'librdkafka_' + codec
        write_vec(os.path.join(vectors, name + '.vec'),
                  'librdkafka %s: 60 records, codec %s' % (libversion()[0], codec),
                  [(data, recs, attributes)])
        with open(os.path.join(corpus, name), 'wb') as f:
            f.write(data)
    print('librdkafka_vectors.py: 5 vectors written')


if __name__ == '__main__':
    if len(sys.argv) != 3:
        sys.exit('usage: librdkafka_vectors.py VECTORS_DIR CORPUS_DIR')
    main(sys.argv[1], sys.argv[2])
