"""Kafka protocol details the listener must get right, for
test/t/041_kafka_protocol.pl (and the login and TLS checks of 033 and 034):
Fetch's byte limits, OffsetCommit of any offset, Produce versions and
compression, transactional producers served at once, group listings,
members whose role may no longer log in, PLAIN's timing, TLS settings.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2, confluent-kafka
1.7.0):

    protocol.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document: what the server (or the client)
did.  Requests are written byte by byte where the test measures or checks
the bytes themselves.
"""
import json
import socket
import ssl
import statistics
import struct
import subprocess
import sys
import threading
import time

import raw_wire
from raw_wire import Enc, connect, read_exactly


def call(sock, key, version, corr, body):
    """One request: the response's size (the whole frame) and body"""
    sock.sendall(raw_wire.frame(key, version, corr, body, 'protocol-test'))
    data = raw_wire.read_frame(sock)
    assert struct.unpack('>i', data[:4])[0] == corr
    return 4 + len(data), data[4:]


# the requests here are of versions before the flexible ones
string = Enc().string


class Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def string(self):
        n = self.take('>h')
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def bytes(self):
        n = self.take('>i')
        if n < 0:
            return None
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b


def batches(records):
    """The record batches of a partition's records: [(base offset, count,
    size, codec)]"""
    out = []
    pos = 0
    while records is not None and pos + 61 <= len(records):
        base, length = struct.unpack_from('>qi', records, pos)
        attributes = struct.unpack_from('>h', records, pos + 21)[0]
        count = struct.unpack_from('>i', records, pos + 57)[0]
        out.append((base, count, 12 + length, attributes & 7))
        pos += 12 + length
    return out


# ---- Fetch within max_bytes and partition_max_bytes

def fetch_sizes(bootstrap, topic, max_bytes, partition_max, *offsets):
    """A raw Fetch v4 of partitions 0..n-1 of topic at the offsets given:
    the answer's size, and per partition [partition, error, records'
    bytes, records]"""
    s = connect(bootstrap)
    name = topic.encode()
    parts = b''.join(struct.pack('>iqi', p, int(o), int(partition_max))
                     for p, o in enumerate(offsets))
    body = (struct.pack('>iiiib', -1, 0, 1, int(max_bytes), 0)
            + struct.pack('>i', 1) + struct.pack('>h', len(name)) + name
            + struct.pack('>i', len(offsets)) + parts)
    size, data = call(s, 1, 4, 1, body)
    s.close()
    r = Reader(data)
    r.take('>i')                 # throttle
    out = []
    for _ in range(r.take('>i')):
        r.string()
        for _ in range(r.take('>i')):
            partition, error = r.take('>ih')
            r.take('>qq')        # high watermark, last stable offset
            for _ in range(max(r.take('>i'), 0)):
                r.take('>qq')    # aborted transactions
            records = r.bytes()
            found = batches(records)
            out.append([partition, error, len(records or b''),
                        sum(b[1] for b in found)])
    return {'size': size, 'partitions': out}


def ck_fetch_budget(bootstrap, topic, nparts, fetch_max_bytes, expected):
    """A confluent-kafka consumer of every partition from the beginning
    with fetch.max.bytes and the receive buffer librdkafka sizes from it
    (the smallest it allows: 512 bytes more): the records it gets within
    60 s, and whether librdkafka dropped an answer as too large"""
    from confluent_kafka import Consumer, TopicPartition, OFFSET_BEGINNING
    errors = []
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'budget',
                  'enable.auto.commit': False,
                  'fetch.max.bytes': int(fetch_max_bytes),
                  'receive.message.max.bytes': int(fetch_max_bytes) + 512,
                  # librdkafka wants it no larger than fetch.max.bytes
                  'message.max.bytes': int(fetch_max_bytes),
                  'error_cb': lambda e: errors.append(str(e))},
                 logger=_Log(errors))
    c.assign([TopicPartition(topic, p, OFFSET_BEGINNING)
              for p in range(int(nparts))])
    got = 0
    start = time.time()
    while got < int(expected) and time.time() - start < 60:
        m = c.poll(1.0)
        if m is not None and not m.error():
            got += 1
    seconds = time.time() - start
    c.close()
    return {'records': got, 'seconds': round(seconds, 1),
            'invalid_size': any('Invalid response size' in e for e in errors)}


class _Log:
    """A logging.Logger stand-in collecting librdkafka's log lines"""

    def __init__(self, lines):
        self.lines = lines

    def log(self, level, fmt, *args):
        self.lines.append(fmt % args if args else fmt)

    def isEnabledFor(self, level):
        return True


# ---- OffsetCommit of any offset

def commit(bootstrap, group, topic, *pairs):
    """OffsetCommit v2 outside any membership of PARTITION:OFFSET pairs:
    the error of each"""
    s = connect(bootstrap)
    parts = b''
    for pair in pairs:
        p, o = pair.split(':')
        parts += struct.pack('>iq', int(p), int(o)) + string('tool')
    body = (string(group) + struct.pack('>i', -1) + string('')
            + struct.pack('>q', -1) + struct.pack('>i', 1) + string(topic)
            + struct.pack('>i', len(pairs)) + parts)
    size, data = call(s, 8, 2, 1, body)
    s.close()
    r = Reader(data)
    errors = []
    for _ in range(r.take('>i')):
        r.string()
        for _ in range(r.take('>i')):
            errors.append(list(r.take('>ih')))
    return errors


def committed(bootstrap, group, topic, nparts):
    """OffsetFetch v1 of partitions 0..n-1: [partition, offset, error]"""
    s = connect(bootstrap)
    body = (string(group) + struct.pack('>i', 1) + string(topic)
            + struct.pack('>i', int(nparts))
            + b''.join(struct.pack('>i', p) for p in range(int(nparts))))
    size, data = call(s, 9, 1, 1, body)
    s.close()
    r = Reader(data)
    out = []
    for _ in range(r.take('>i')):
        r.string()
        for _ in range(r.take('>i')):
            p, o = r.take('>iq')
            r.string()
            out.append([p, o, r.take('>h')])
    return out


def ck_group_reads(bootstrap, topic, group, reset, expected):
    """A confluent-kafka member of group with auto.offset.reset: the
    [partition, offset] of the records it reads (up to expected, 60 s)"""
    from confluent_kafka import Consumer
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                  'auto.offset.reset': reset, 'enable.auto.commit': False})
    c.subscribe([topic])
    got = []
    start = time.time()
    while len(got) < int(expected) and time.time() - start < 60:
        m = c.poll(1.0)
        if m is not None and not m.error():
            got.append([m.partition(), m.offset()])
    c.close()
    return sorted(got)


# ---- Produce versions and compression

def api_versions(bootstrap):
    """ApiVersions v0: {api key: [min, max]}"""
    s = connect(bootstrap)
    size, data = call(s, 18, 0, 1, b'')
    s.close()
    r = Reader(data)
    assert r.take('>h') == 0
    return {str(k): [lo, hi] for k, lo, hi in
            (r.take('>hhh') for _ in range(r.take('>i')))}


class ProduceSpy:
    """A TCP proxy in front of the listener that notes the compression
    codec of every record batch clients produce through it, and points
    Metadata's broker at itself so that clients stay behind it"""

    def __init__(self, bootstrap):
        host, port = bootstrap.rsplit(':', 1)
        self.upstream = (host, int(port))
        self.server = socket.socket()
        self.server.bind(('127.0.0.1', 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.codecs = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            client, _ = self.server.accept()
            upstream = socket.create_connection(self.upstream)
            metadata = {}
            threading.Thread(target=self._requests, daemon=True,
                             args=(client, upstream, metadata)).start()
            threading.Thread(target=self._responses, daemon=True,
                             args=(upstream, client, metadata)).start()

    @staticmethod
    def _frames(src):
        while True:
            try:
                size = read_exactly(src, 4)
                yield size + read_exactly(src, struct.unpack('>i', size)[0])
            except (EOFError, OSError):
                return

    def _requests(self, client, upstream, metadata):
        for f in self._frames(client):
            key, version, corr = struct.unpack_from('>hhi', f, 4)
            if key == 3:
                metadata[corr] = version
            elif key == 0 and version >= 3:
                self._note_codecs(f, version)
            upstream.sendall(f)
        upstream.close()

    def _note_codecs(self, f, version):
        r = Reader(f[12:])
        r.string()               # client id
        r.string()               # transactional id
        r.take('>hi')            # acks, timeout
        for _ in range(r.take('>i')):
            r.string()
            for _ in range(r.take('>i')):
                r.take('>i')
                for b in batches(r.bytes()):
                    self.codecs.append(b[3])

    def _responses(self, upstream, client, metadata):
        for f in self._frames(upstream):
            corr = struct.unpack_from('>i', f, 4)[0]
            if corr in metadata:
                f = self._rewrite_metadata(f, metadata.pop(corr))
            client.sendall(f)
        client.close()

    def _rewrite_metadata(self, f, version):
        r = Reader(f[8:])
        head = b''
        if version >= 3:
            head = struct.pack('>i', r.take('>i'))
        brokers = []
        for _ in range(r.take('>i')):
            node = r.take('>i')
            r.string()
            r.take('>i')
            rack = r.string() if version >= 1 else None
            brokers.append(struct.pack('>i', node) + string('127.0.0.1')
                           + struct.pack('>i', self.port)
                           + (struct.pack('>h', -1) if version >= 1 and rack is None
                              else (string(rack) if version >= 1 else b'')))
        body = (f[4:8] + head + struct.pack('>i', len(brokers))
                + b''.join(brokers) + f[8 + r.pos:])
        return struct.pack('>i', len(body)) + body


def ck_compressed(bootstrap, topic, codec, count):
    """A confluent-kafka producer with compression.type codec, behind a
    ProduceSpy: the codecs of the batches it sent, and its delivery
    reports' errors"""
    from confluent_kafka import Producer
    spy = ProduceSpy(bootstrap)
    errors = []
    delivered = []
    p = Producer({'bootstrap.servers': '127.0.0.1:%d' % spy.port,
                  'compression.type': codec, 'linger.ms': 100,
                  'partitioner': 'murmur2_random'})
    for i in range(int(count)):
        # compressible, so that librdkafka keeps the compressed batch
        p.produce(topic, key=b'%s-%d' % (codec.encode(), i),
                  value=(b'%s record %d ' % (codec.encode(), i)) * 40,
                  on_delivery=lambda err, msg: (errors if err else delivered)
                  .append(str(err) if err else msg.offset()))
    p.flush(60)
    return {'codecs': sorted(set(spy.codecs)), 'batches': len(spy.codecs),
            'delivered': len(delivered), 'errors': errors}


# ---- transactional producers

def ck_init_transactions(bootstrap, timeout):
    """confluent-kafka's init_transactions(timeout): the error and how long
    it took"""
    from confluent_kafka import Producer, KafkaException
    p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': 'tx-1'})
    start = time.time()
    try:
        p.init_transactions(float(timeout))
        error = None
    except KafkaException as e:
        error = e.args[0].name()
    return {'error': error, 'seconds': round(time.time() - start, 2)}


def find_coordinator(bootstrap, key, key_type):
    """FindCoordinator v1: the error code"""
    s = connect(bootstrap)
    size, data = call(s, 10, 1, 1, string(key) + struct.pack('>b', int(key_type)))
    s.close()
    return struct.unpack_from('>h', data, 4)[0]


def init_producer_id(bootstrap, transactional_id):
    """InitProducerId v0 with a transactional id: the error code"""
    s = connect(bootstrap)
    size, data = call(s, 22, 0, 1, string(transactional_id) + struct.pack('>i', 60000))
    s.close()
    return struct.unpack_from('>h', data, 4)[0]


# ---- groups

def groups(bootstrap, group):
    """ListGroups v1's [group, protocol type] pairs, and DescribeGroups v1
    of group: [error, state, protocol type]"""
    s = connect(bootstrap)
    size, data = call(s, 16, 1, 1, b'')
    r = Reader(data)
    r.take('>ih')
    listed = [[r.string(), r.string()] for _ in range(r.take('>i'))]
    size, data = call(s, 15, 1, 2, struct.pack('>i', 1) + string(group))
    s.close()
    r = Reader(data)
    r.take('>ii')
    error = r.take('>h')
    r.string()
    return {'listed': sorted(listed),
            'described': [error, r.string(), r.string()]}


def member_role_lost(bootstrap, role, group, topic, request, *command):
    """role joins group (SCRAM, password "<role>pw"), command runs (psql
    taking the role's rights away; what it prints is returned), then the
    member sends request (heartbeat, sync or leave): its error, or
    "closed" """
    sys.path.insert(0, __import__('os').path.dirname(__file__))
    from roles import Conn, join
    from kafka.protocol.group import (HeartbeatRequest, LeaveGroupRequest,
                                      SyncGroupRequest)
    c = Conn(bootstrap, role)
    member = join(c, group, [topic])
    shown = subprocess.run(list(command), check=True, capture_output=True,
                           text=True).stdout.split()
    req = {'heartbeat': HeartbeatRequest[1](group, member['generation'],
                                            member['member']),
           'sync': SyncGroupRequest[1](group, member['generation'],
                                       member['member'], []),
           'leave': LeaveGroupRequest[1](group, member['member'])}[request]
    try:
        after = c.call(req).error_code
    except (EOFError, ConnectionResetError):
        after = 'closed'
    return {'joined': member['error'], 'shown': shown, 'after': after}


# ---- PLAIN's timing

def plain_logins(bootstrap, rounds, *users):
    """rounds PLAIN logins of each USER:PASSWORD, in turn: per user, the
    answers [error, message] seen and the median milliseconds of the
    SaslAuthenticate round trip"""
    times = {u: [] for u in users}
    answers = {u: set() for u in users}
    for _ in range(int(rounds)):
        for u in users:
            user, password = u.split(':', 1)
            s = connect(bootstrap)
            size, data = call(s, 17, 1, 1, string('PLAIN'))
            assert struct.unpack_from('>h', data)[0] == 0
            token = b'\0' + user.encode() + b'\0' + password.encode()
            start = time.perf_counter()
            size, data = call(s, 36, 0, 2, struct.pack('>i', len(token)) + token)
            times[u].append((time.perf_counter() - start) * 1000)
            s.close()
            r = Reader(data)
            answers[u].add((r.take('>h'), r.string()))
    return {u: {'answers': sorted(list(a) for a in answers[u]),
                'median_ms': round(statistics.median(times[u]), 3)}
            for u in users}


# ---- TLS settings

def tls_probe(bootstrap, cafile, minimum, maximum, ciphers):
    """A TLS handshake limited to versions minimum..maximum ("" for no
    limit, else TLSv1_2 or TLSv1_3) and ciphers ("" for the default), then
    ApiVersions: "ok <version> <cipher>" or the error"""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(cafile)
    ctx.check_hostname = False
    if minimum:
        ctx.minimum_version = getattr(ssl.TLSVersion, minimum)
    if maximum:
        ctx.maximum_version = getattr(ssl.TLSVersion, maximum)
    if ciphers:
        ctx.set_ciphers(ciphers)
    raw = connect(bootstrap, timeout=10)
    try:
        s = ctx.wrap_socket(raw)
        call(s, 18, 0, 1, b'')
        answer = 'ok %s %s' % (s.version(), s.cipher()[0])
        s.close()
        return answer
    except (ssl.SSLError, OSError, EOFError) as e:
        return 'refused: %s' % e


COMMANDS = {f.__name__: f for f in (
    fetch_sizes, ck_fetch_budget, commit, committed,
    ck_group_reads, api_versions, ck_compressed,
    ck_init_transactions, find_coordinator, init_producer_id, groups,
    member_role_lost, plain_logins, tls_probe)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
