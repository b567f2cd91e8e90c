#!/usr/bin/python3
# Produce at every version, the old message formats (magic 0 and 1) of
# Produce v0-2 and the flexible encoding of v9+, by raw requests; and
# kafka-python 2.0.2 forced to old broker versions as a real old client.
#
#   message_formats.py BOOTSTRAP COMMAND ARGS...   (prints JSON)
#
# Run with Debian's /usr/bin/python3 (python3-kafka).

import gzip
import json
import struct
import sys
import time
import zlib

from kafka.record.default_records import DefaultRecordBatchBuilder

import raw_wire
from raw_wire import Enc, connect, read_exactly

CLIENT_ID = 'message-formats'


def call(sock, key, version, corr, body, flexible=False):
    """One request (header v2 when flexible): the response body, after its
    header (v1 when flexible: tagged fields)"""
    return Reader(raw_wire.call(sock, key, version, corr, body, CLIENT_ID, flexible),
                  flexible)


class Reader:
    def __init__(self, data, flexible=False):
        self.data = data
        self.pos = 0
        self.flexible = flexible
        if flexible:
            self.tagged()

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def uvarint(self):
        shift = n = 0
        while True:
            b = self.data[self.pos]
            self.pos += 1
            n |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return n

    def count(self):
        return self.uvarint() - 1 if self.flexible else self.take('>i')

    def string(self):
        n = self.count() if self.flexible else self.take('>h')
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def tagged(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.pos += self.uvarint()

    def rest(self):
        return len(self.data) - self.pos


def message(magic, key, value, codec=0):
    """One message of magic 0 or 1 (its offset 0), with its crc"""
    def b(x):
        return struct.pack('>i', -1) if x is None else struct.pack('>i', len(x)) + x
    body = struct.pack('>bb', magic, codec)
    if magic == 1:
        body += struct.pack('>q', 1700000000000)
    body += b(key) + b(value)
    m = struct.pack('>I', zlib.crc32(body) & 0xffffffff) + body
    return m


def message_set(magic, records, codec='none', corrupt=False):
    """A MessageSet of records ([key, value], strings or None) of magic,
    uncompressed or in a gzip wrapper"""
    def enc(x):
        return None if x is None else x.encode()
    inner = b''
    for i, (k, v) in enumerate(records):
        m = message(magic, enc(k), enc(v))
        inner += struct.pack('>qi', i if codec != 'none' else 0, len(m)) + m
    if codec == 'gzip':
        w = message(magic, None, gzip.compress(inner), 1)
        inner = struct.pack('>qi', len(records) - 1, len(w)) + w
    elif codec == 'gzip2':
        # two wrappers, the first with the first record, the second with
        # the rest (offsets relative to each wrapper's)
        out = b''
        for part in (records[:1], records[1:]):
            w = message(magic, None, gzip.compress(message_set(magic, part, 'inner')), 1)
            out += struct.pack('>qi', len(part) - 1, len(w)) + w
        inner = out
    if corrupt:
        inner = inner[:-1] + bytes([inner[-1] ^ 1])
    return inner


def record_batch(records):
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    for i, (k, v) in enumerate(records):
        b.append(i, timestamp=None, key=None if k is None else k.encode(),
                 value=None if v is None else v.encode(),
                 headers=[('h', b'x')])
    return bytes(b.build())


def produce_request(version, topic, records, acks):
    e = Enc(version >= 9)
    body = b''
    if version >= 3:
        body += e.string(None)
    body += e.int16(acks) + e.int32(30000)
    partition = e.int32(0) + e.bytes(records) + e.tags()
    t = e.string(topic) + e.array([partition]) + e.tags()
    return body + e.array([t]) + e.tags()


def parse_produce(version, r):
    out = []
    for _ in range(r.count()):
        name = r.string()
        for _ in range(r.count()):
            entry = [name] + list(r.take('>ihq'))
            if version >= 2:
                entry.append(r.take('>q') > 0)     # a log-append time
            if version >= 5:
                entry.append(r.take('>q'))         # log start offset
            if version >= 8:
                assert r.count() == 0              # record errors
                entry.append(r.string())           # error message
            if r.flexible:
                r.tagged()
            out.append(entry)
        if r.flexible:
            r.tagged()
    if version >= 1:
        assert r.take('>i') == 0
    if r.flexible:
        r.tagged()
    return {'answer': out, 'rest': r.rest()}


def produce(bootstrap, version, fmt, topic, records_json, acks='-1'):
    """Produce records (JSON [[key, value], ...]) at version in fmt: magic0,
    magic1, magic0-gzip, magic1-gzip, magic1-gzip2 (two gzip wrappers),
    magic0-corrupt, or batch (magic 2);
    the answer, then whether the connection still answers"""
    version, acks = int(version), int(acks)
    records = json.loads(records_json)
    if fmt == 'batch':
        payload = record_batch(records)
    else:
        magic = int(fmt[5])
        codec = fmt[7:] if fmt[6:7] == '-' and fmt[7:11] == 'gzip' else 'none'
        payload = message_set(magic, records, codec, fmt.endswith('corrupt'))
    s = connect(bootstrap)
    try:
        r = call(s, 0, version, 7, produce_request(version, topic, payload, acks),
                 flexible=version >= 9)
        out = parse_produce(version, r)
    except EOFError:
        return {'answer': 'closed'}
    # the connection goes on
    call(s, 18, 0, 8, b'')
    s.close()
    return out


def kp_produce(bootstrap, api_version, topic, count):
    """kafka-python 2.0.2 told the broker is api_version (e.g. 0.9: Produce
    v1 of magic 0; 0.10: Produce v2 of magic 1), gzip-compressed or not:
    the offsets its futures report"""
    from kafka import KafkaProducer
    version = tuple(int(x) for x in api_version.split('.'))
    out = {}
    for compression in (None, 'gzip'):
        p = KafkaProducer(bootstrap_servers=bootstrap, api_version=version,
                          compression_type=compression, linger_ms=50)
        futures = [p.send(topic, key=b'kp-%d' % i,
                          value=b'%s %s %d' % (api_version.encode(),
                                              (compression or 'none').encode(), i),
                          partition=0)
                   for i in range(int(count))]
        p.flush()
        out[compression or 'none'] = [f.get(timeout=30).offset for f in futures]
        p.close()
    return out


def kp_consume(bootstrap, api_version, topic):
    """kafka-python 2.0.2 told the broker is api_version (0.10: Fetch v2, of
    magic 1 messages) reading partition 0 from offset 0 (seek, not
    seek_to_beginning: ListOffsets v0 is not served): [offset, value] of
    each record"""
    from kafka import KafkaConsumer, TopicPartition
    version = tuple(int(x) for x in api_version.split('.'))
    c = KafkaConsumer(bootstrap_servers=bootstrap, api_version=version,
                      enable_auto_commit=False, consumer_timeout_ms=5000)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek(tp, 0)
    out = [[m.offset, m.value.decode()] for m in c]
    c.close()
    return out


def pipelined(bootstrap, version, topic, tag, bad='0'):
    """Three Produce requests of version sent back to back (one
    transaction), then their answers: [error, base offset] each; if bad,
    the third is cut short (its records end early): "closed" and the
    answers that came before"""
    version = int(version)
    flexible = version >= 9
    s = connect(bootstrap)
    frames = b''
    for corr in range(3):
        payload = (raw_wire.header(0, version, corr, CLIENT_ID, flexible)
                   + produce_request(version, topic,
                                     record_batch([[tag, 'pipelined %d' % corr]]), -1))
        if bad == '1' and corr == 2:
            payload = payload[:-10]
        frames += struct.pack('>i', len(payload)) + payload
    s.sendall(frames)                     # in one write, as a pipeline
    out = []
    for corr in range(3):
        try:
            n = struct.unpack('>i', read_exactly(s, 4))[0]
        except (EOFError, ConnectionResetError):
            return {'closed': out}
        frame = read_exactly(s, n)
        assert struct.unpack('>i', frame[:4])[0] == corr
        a = parse_produce(version, Reader(frame[4:], flexible))['answer']
        out.append([a[0][2], a[0][3]])
    s.close()
    return out


def fetch_request(version, topic, offset, max_bytes, max_wait=100):
    """Fetch of partition 0 of topic (a name, or v13+ a topic id in hex),
    min_bytes 1"""
    flex = version >= 12
    e = Enc(flex)
    body = ((struct.pack('>i', -1) if version <= 14 else b'')
            + struct.pack('>ii', max_wait, 1)
            + (struct.pack('>i', max_bytes) if version >= 3 else b'')
            + (struct.pack('>b', 1) if version >= 4 else b'')
            + (struct.pack('>ii', 0, -1) if version >= 7 else b''))
    partition = (struct.pack('>i', 0) + (struct.pack('>i', -1) if version >= 9 else b'')
                 + struct.pack('>q', offset)
                 + (struct.pack('>i', -1) if version >= 12 else b'')
                 + (struct.pack('>q', -1) if version >= 5 else b'')
                 + struct.pack('>i', max_bytes) + e.tags())
    name = bytes.fromhex(topic) if version >= 13 else e.string(topic)
    body += e.array([name + e.array([partition]) + e.tags()])
    if version >= 7:
        body += e.array([])
    if version >= 11:
        body += e.string('')
    return body + e.tags()


def fetch(bootstrap, version, topic, offset, max_bytes='1048576', max_wait='100'):
    """Fetch at version: the partition's error, high watermark, last stable
    offset and records [offset, key, value, headers], and the seconds the
    answer took"""
    from kafka.record import MemoryRecords
    version, offset, max_bytes = int(version), int(offset), int(max_bytes)
    flex = version >= 12
    s = connect(bootstrap, timeout=int(max_wait) / 1000 + 30)
    started = time.monotonic()
    r = call(s, 1, version, 9,
             fetch_request(version, topic, offset, max_bytes, int(max_wait)),
             flexible=flex)
    seconds = time.monotonic() - started
    s.close()
    if version >= 1:
        r.take('>i')
    if version >= 7:
        assert r.take('>hi') == (0, 0)
    out = {}
    assert r.count() == 1
    if version >= 13:
        out['topic_id'] = r.data[r.pos:r.pos + 16].hex()
        r.pos += 16
    else:
        out['topic'] = r.string()
    assert r.count() == 1
    index, out['error'], out['high_watermark'] = r.take('>ihq')
    if version >= 4:
        out['last_stable'] = r.take('>q')
    if version >= 5:
        out['log_start'] = r.take('>q')
    if version >= 4:
        assert r.count() in (0, -1)
    if version >= 11:
        assert r.take('>i') == -1
    n = r.count() if flex else r.take('>i')
    data = r.data[r.pos:r.pos + max(n, 0)]
    r.pos += max(n, 0)
    if flex:
        r.tagged()          # the partition's
        r.tagged()          # the topic's
        r.tagged()          # the body's
    out['rest'] = r.rest()
    records = []
    out['magic'] = data[16] if len(data) > 16 else None
    batches = MemoryRecords(data)
    while batches.has_next():
        for rec in batches.next_batch():
            records.append([rec.offset, None if rec.key is None else rec.key.decode(),
                            None if rec.value is None else rec.value.decode(),
                            [[k, v.decode()] for k, v in rec.headers]])
    out['records'] = records
    out['seconds'] = round(seconds, 3)
    return out


COMMANDS = {f.__name__: f for f in (produce, kp_produce, kp_consume, pipelined, fetch)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
