#!/usr/bin/python3
# Cross-checks of src/wire/record_batch.c against librdkafka (Debian's
# python3-confluent-kafka), through a stub broker that knows just enough
# of the protocol (ApiVersions, Metadata, FindCoordinator, Produce, Fetch).
#
#   librdkafka.py generate VECTORS_DIR CORPUS_DIR
#       takes what a librdkafka producer sends, once per codec, and writes
#       each batch as a test vector (.vec, the format is in kafka_python.py)
#       and as a seed of the fuzzer's corpus
#   librdkafka.py check FILE.vec...
#       serves the batches of each file (written by record_batch_test from
#       our encoder) as a partition's log to a librdkafka consumer, which
#       checks their CRCs, and compares the records it gets with those the
#       file expects; a fetch gets the one batch that spans its offset (or
#       nothing), so the consumer must step over a batch without records
#       by itself, to the offset after its lastOffsetDelta
#
# Run with Debian's /usr/bin/python3.

import os
import socket
import struct
import sys
import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition, libversion

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kafka_python import read_vec, write_vec        # noqa: E402

TOPIC = 'vectors'
CODECS = ('none', 'gzip', 'snappy', 'lz4', 'zstd')
LOG_APPEND_TIME = 0x08


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0]

    def sized(self, fmt):
        n = self.take(fmt)
        s = self.data[self.pos:self.pos + max(n, 0)]
        self.pos += max(n, 0)
        return s


def string(s):
    return struct.pack('>h', len(s)) + s


class StubBroker:
    """node 0 on a loopback port, leader of partition 0 of TOPIC"""

    def __init__(self, apis, log=None):
        # apis: (key, min, max); log: [(base offset, last offset, batch)]
        self.apis, self.log = apis, log or []
        self.produced = []
        self.unexpected = []
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(8)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            conn, _ = self.listener.accept()
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn):
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
            r.sized('>h')                               # client id
            handler = {18: self.api_versions, 3: self.metadata, 10: self.find_coordinator,
                       0: self.produce, 1: self.fetch}.get(api)
            if handler is None:
                self.unexpected.append((api, version))
                conn.close()
                return
            body = handler(r, version)
            conn.sendall(struct.pack('>ii', 4 + len(body), correlation) + body)

    def api_versions(self, r, version):
        body = struct.pack('>h', 0)
        if version >= 3:
            body += bytes([len(self.apis) + 1])
            for key, lo, hi in self.apis:
                body += struct.pack('>hhh', key, lo, hi) + b'\0'
            return body + struct.pack('>i', 0) + b'\0'
        body += struct.pack('>i', len(self.apis))
        for key, lo, hi in self.apis:
            body += struct.pack('>hhh', key, lo, hi)
        return body + (struct.pack('>i', 0) if version >= 1 else b'')

    def metadata(self, r, version):
        body = struct.pack('>ii', 1, 0) + string(b'127.0.0.1') + struct.pack('>ih', self.port, -1)
        body += struct.pack('>i', 0)                    # controller
        body += struct.pack('>ih', 1, 0) + string(TOPIC.encode()) + b'\0'
        # partition 0: no error, leader 0, replicas [0], isr [0]
        return body + struct.pack('>ihii', 1, 0, 0, 0) + struct.pack('>ii', 1, 0) * 2

    def find_coordinator(self, r, version):
        head = struct.pack('>ih', 0, 0) + struct.pack('>h', -1) if version >= 1 else struct.pack('>h', 0)
        return head + struct.pack('>i', 0) + string(b'127.0.0.1') + struct.pack('>i', self.port)

    def produce(self, r, version):
        r.sized('>h')                                   # transactional id
        r.take('>h')
        r.take('>i')
        responses = b''
        ntopics = r.take('>i')
        for _ in range(ntopics):
            name = r.sized('>h')
            nparts = r.take('>i')
            parts = b''
            for _ in range(nparts):
                index = r.take('>i')
                self.produced.append(r.sized('>i'))
                parts += struct.pack('>ihqq', index, 0, 0, -1)
                if version >= 5:
                    parts += struct.pack('>q', 0)
            responses += string(name) + struct.pack('>i', nparts) + parts
        return struct.pack('>i', ntopics) + responses + struct.pack('>i', 0)

    def fetch(self, r, version):
        assert version == 4
        r.take('>i')                                    # replica
        max_wait = r.take('>i')
        r.take('>i')
        r.take('>i')
        r.take('>b')
        responses = b''
        ntopics = r.take('>i')
        served = False
        end = self.log[-1][1] + 1 if self.log else 0
        for _ in range(ntopics):
            name = r.sized('>h')
            nparts = r.take('>i')
            parts = b''
            for _ in range(nparts):
                index, offset = r.take('>i'), r.take('>q')
                r.take('>i')
                data = next((d for base, last, d in self.log if base <= offset <= last), b'')
                served |= bool(data)
                parts += struct.pack('>ihqqi', index, 0, end, end, -1) + \
                    struct.pack('>i', len(data)) + data
            responses += string(name) + struct.pack('>i', nparts) + parts
        if not served:
            time.sleep(min(max_wait, 100) / 1000)
        return struct.pack('>i', 0) + struct.pack('>i', ntopics) + responses


def records():
    ts = 1700000000000
    out = []
    for i in range(60):
        key = None if i % 7 == 0 else b'key-%d' % i
        value = None if i % 11 == 5 else (b'' if i % 13 == 0 else b'value %d; ' % i * (i % 9 + 1))
        headers = [('n', b'%d' % i), ('dup', None), ('dup', b'')] if i % 4 == 1 else []
        out.append((i, ts + i * 3 - (50 if i == 7 else 0), key, value, headers))
    return out


def generate(vectors, corpus):
    os.makedirs(vectors, exist_ok=True)
    os.makedirs(corpus, exist_ok=True)
    # what librdkafka must see to write batches of magic 2 with every codec:
    # Produce 3 and Fetch 4 for magic 2, Produce 7 and Fetch 10 for zstd,
    # FindCoordinator for lz4
    broker = StubBroker([(0, 0, 7), (1, 0, 11), (3, 0, 1), (10, 0, 2), (18, 0, 3)])
    recs = records()
    for codec in CODECS:
        # librdkafka may split the records (it sends what it has when the
        # partition's leader becomes known), and sends a batch that does not
        # shrink uncompressed: try again until one batch holds them all
        for attempt in range(10):
            del broker.produced[:]
            p = Producer({'bootstrap.servers': '127.0.0.1:%d' % broker.port,
                          'compression.codec': codec, 'linger.ms': 500,
                          'enable.idempotence': False, 'acks': 1})
            for offset, ts, key, value, headers in recs:
                p.produce(TOPIC, value=value, key=key, partition=0, timestamp=ts,
                          headers=headers or None)
            assert p.flush(20) == 0, 'librdkafka did not deliver'
            if len(broker.produced) == 1:
                break
        data = broker.produced[0]
        count = struct.unpack_from('>i', data, 57)[0]
        attributes = struct.unpack_from('>h', data, 21)[0]
        assert len(broker.produced) == 1 and count == len(recs), 'the records in one batch'
        assert len(data) == 12 + struct.unpack_from('>i', data, 8)[0], 'one batch'
        assert attributes & 7 == CODECS.index(codec)
        name = 'librdkafka_' + codec
        write_vec(os.path.join(vectors, name + '.vec'),
                  'librdkafka %s: 60 records, codec %s' % (libversion()[0], codec),
                  [(data, recs, attributes)])
        with open(os.path.join(corpus, name), 'wb') as f:
            f.write(data)
    print('librdkafka.py: %d vectors written' % len(CODECS))


def consume(path):
    """the problems of a librdkafka consumer reading the batches of path"""
    batches = read_vec(path)
    log = []
    expected = []
    for b in batches:
        base, last_delta = struct.unpack_from('>q', b['data'])[0], struct.unpack_from('>i', b['data'], 23)[0]
        log.append((base, base + last_delta, b['data']))
        tstype = 2 if b.get('attributes', 0) & LOG_APPEND_TIME else 1
        expected += [r + (tstype,) for r in b['records']]
    # Produce 3 and Fetch 4: magic 2, and a Fetch response of version 4
    broker = StubBroker([(0, 0, 3), (1, 0, 4), (3, 0, 1), (10, 0, 2), (18, 0, 3)], log)
    c = Consumer({'bootstrap.servers': '127.0.0.1:%d' % broker.port, 'group.id': 'wire',
                  'enable.auto.commit': False, 'check.crcs': True, 'fetch.wait.max.ms': 50,
                  'enable.partition.eof': False})
    first = struct.unpack_from('>q', batches[0]['data'])[0]
    c.assign([TopicPartition(TOPIC, 0, first)])
    got, problems = [], []
    deadline = time.time() + 10
    while len(got) < len(expected) and time.time() < deadline:
        m = c.poll(0.1)
        if m is None:
            continue
        if m.error():
            problems.append('consumer error: %s' % m.error())
            break
        tstype, ts = m.timestamp()
        got.append((m.offset(), ts, m.key(), m.value(), m.headers() or [], tstype))
    c.close()
    if got != expected:
        problems.append('records differ:\n  got      %r\n  expected %r' % (got, expected))
    if broker.unexpected:
        problems.append('requests the stub broker does not know: %r' % broker.unexpected)
    return problems


def check(paths):
    failed = 0
    for path in paths:
        problems = consume(path)
        if problems:
            failed += 1
            print('not ok: %s: %s' % (path, '; '.join(problems)))
    print('librdkafka: %d passed, %d failed' % (len(paths) - failed, failed))
    return failed == 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'generate':
        generate(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == 'check':
        sys.exit(0 if check(sys.argv[2:]) else 1)
    else:
        sys.exit('usage: librdkafka.py generate VECTORS_DIR CORPUS_DIR | check FILE.vec...')
