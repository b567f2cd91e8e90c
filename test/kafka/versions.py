"""The versions Apache Kafka 3.9 serves of ApiVersions, Metadata and
FindCoordinator, asked for byte by byte, and the versions real clients send
now that they are offered, for test/t/048_kafka_versions.pl.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2, confluent-kafka
1.7.0 on librdkafka 2.0.2):

    versions.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document.  The requests and answers are
written and read here from Kafka's message definitions (request header v2
and response header v1 in flexible versions, but ApiVersions' response
header, v0 always); an answer must be read to its last byte.
"""
import json
import logging
import re
import struct
import sys

import raw_wire
from raw_wire import Enc, connect


def call(sock, key, version, body, flexible, response_flexible=None):
    """One request (header v1, or v2 in a flexible version): the response
    body, after its header (v0, or v1 with its tagged fields)"""
    if response_flexible is None:
        response_flexible = flexible
    r = Reader(raw_wire.call(sock, key, version, 77, body, 'versions-test',
                             flexible), flexible)
    if response_flexible:
        r.tagged()
    return r


class Reader:
    def __init__(self, data, flexible):
        self.data = data
        self.pos = 0
        self.flexible = flexible

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
            if not b & 0x80:
                return n
            shift += 7

    def string(self):
        n = self.uvarint() - 1 if self.flexible else self.take('>h')
        if n < 0:
            return None
        s = self.data[self.pos:self.pos + n].decode()
        self.pos += n
        return s

    def count(self):
        return self.uvarint() - 1 if self.flexible else self.take('>i')

    def tagged(self):
        """the tagged fields: {tag: bytes}"""
        out = {}
        if self.flexible:
            for _ in range(self.uvarint()):
                tag = self.uvarint()
                size = self.uvarint()
                out[tag] = self.data[self.pos:self.pos + size]
                self.pos += size
        return out

    def end(self):
        assert self.pos == len(self.data), \
            'answer has %d bytes after its fields' % (len(self.data) - self.pos)


def api_versions(bootstrap, version):
    """ApiVersions at version: its error and {api key: [min, max]}"""
    v = int(version)
    flexible = v >= 3
    e = Enc(True)
    body = (e.string('versions-test') + e.string('1.0') + e.tags()
            if flexible else b'')
    s = connect(bootstrap)
    r = call(s, 18, v, body, flexible, response_flexible=False)
    s.close()
    r.flexible = flexible
    error = r.take('>h')
    apis = {}
    for _ in range(r.count()):
        k, lo, hi = r.take('>hhh')
        r.tagged()
        apis[str(k)] = [lo, hi]
    if v >= 1:
        r.take('>i')
    tags = r.tagged()
    r.end()
    return {'error': error, 'apis': apis, 'tags': sorted(tags)}


def metadata_request(v, topics, ids=None):
    """Metadata at v: topics by name (None: every topic), or by id (v10+)"""
    flexible = v >= 9
    e = Enc(flexible)
    if topics is None and v == 0:
        topics = []

    def topic(t):
        out = b''
        if v >= 10:
            out += bytes.fromhex(t[1]) if t[1] else bytes(16)
        out += e.string(t[0])
        return out + e.tags()
    if topics is not None:
        topics = [(t, None) for t in topics] + [(None, i) for i in ids or []]
    body = e.array(topics, topic)
    if v >= 4:
        body += b'\x00'                 # allow_auto_topic_creation
    if 8 <= v <= 10:
        body += b'\x01'                 # include_cluster_authorized_operations
    if v >= 8:
        body += b'\x01'                 # include_topic_authorized_operations
    return body + e.tags()


def metadata(bootstrap, version, *names):
    """Metadata at version for the topics named (none: every topic; an
    argument id:HEX asks for a topic by id), read whole"""
    v = int(version)
    flexible = v >= 9
    ids = [n[3:] for n in names if n.startswith('id:')]
    names = [n for n in names if not n.startswith('id:')]
    s = connect(bootstrap)
    r = call(s, 3, v, metadata_request(v, names if names or ids else None, ids),
             flexible)
    s.close()
    out = {}
    if v >= 3:
        r.take('>i')
    out['brokers'] = []
    for _ in range(r.count()):
        node = r.take('>i')
        host = r.string()
        port = r.take('>i')
        if v >= 1:
            r.string()                  # rack
        r.tagged()
        out['brokers'].append([node, host, port])
    if v >= 2:
        out['cluster_id'] = r.string()
    if v >= 1:
        out['controller'] = r.take('>i')
    out['topics'] = []
    for _ in range(r.count()):
        t = {'error': r.take('>h'), 'name': r.string()}
        if v >= 10:
            t['id'] = r.data[r.pos:r.pos + 16].hex()
            r.pos += 16
        if v >= 1:
            t['internal'] = r.take('>b')
        t['partitions'] = []
        for _ in range(r.count()):
            p = {'error': r.take('>h'), 'index': r.take('>i'),
                 'leader': r.take('>i')}
            if v >= 7:
                p['epoch'] = r.take('>i')
            p['replicas'] = [r.take('>i') for _ in range(r.count())]
            p['isr'] = [r.take('>i') for _ in range(r.count())]
            if v >= 5:
                p['offline'] = [r.take('>i') for _ in range(r.count())]
            r.tagged()
            t['partitions'].append(p)
        if v >= 8:
            t['operations'] = r.take('>i')
        r.tagged()
        out['topics'].append(t)
    if 8 <= v <= 10:
        out['cluster_operations'] = r.take('>i')
    r.tagged()
    r.end()
    return out


def find_coordinator(bootstrap, version, key_type, *keys):
    """FindCoordinator at version (one key before v4, any number from v4)"""
    v = int(version)
    flexible = v >= 3
    e = Enc(flexible)
    body = b''
    if v < 4:
        body += e.string(keys[0])
    if v >= 1:
        body += e.int8(int(key_type))
    if v >= 4:
        body += e.array(list(keys), e.string)
    body += e.tags()
    s = connect(bootstrap)
    r = call(s, 10, v, body, flexible)
    s.close()
    if v >= 1:
        r.take('>i')
    out = []
    if v < 4:
        error = r.take('>h')
        if v >= 1:
            r.string()
        out.append({'key': keys[0], 'error': error, 'node': r.take('>i'),
                    'host': r.string(), 'port': r.take('>i')})
    else:
        for _ in range(r.count()):
            c = {'key': r.string(), 'node': r.take('>i'), 'host': r.string(),
                 'port': r.take('>i'), 'error': r.take('>h')}
            r.string()
            r.tagged()
            out.append(c)
    r.tagged()
    r.end()
    return out


# ---- the versions real clients send

class Sent(logging.Handler):
    """The versions of the requests a client logs it sent: kafka-python's
    "Request 3: MetadataRequest_v1(...)" (logger kafka.conn, DEBUG),
    librdkafka's "Sent MetadataRequest (v9, ...)" (debug=protocol)"""

    PATTERN = re.compile(r'(\w+)Request(?:_v(\d+)| \(v(\d+))')

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.seen = {}

    def emit(self, record):
        m = self.PATTERN.search(record.getMessage())
        if m and ('Sent ' in record.getMessage() or m.group(2) is not None):
            version = int(m.group(2) or m.group(3))
            self.seen.setdefault(m.group(1), set()).add(version)

    def versions(self, name):
        return sorted(self.seen.get(name, ()))


def clients(bootstrap, topic):
    """kafka-python, then librdkafka (confluent-kafka), produce a record of
    topic and read it in a group: the Metadata, FindCoordinator and
    ApiVersions versions each sent, and the records each read"""
    from confluent_kafka import Consumer, Producer
    from kafka import KafkaConsumer, KafkaProducer
    out = {}

    sent = Sent()
    log = logging.getLogger('kafka.conn')
    log.setLevel(logging.DEBUG)
    log.addHandler(sent)
    p = KafkaProducer(bootstrap_servers=bootstrap)
    p.send(topic, b'from kafka-python').get(timeout=30)
    p.close()
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap,
                      group_id='versions-kp', auto_offset_reset='earliest',
                      consumer_timeout_ms=5000)
    got = [m.value for m in c]
    c.close()
    log.removeHandler(sent)
    out['kafka_python'] = {'metadata': sent.versions('Metadata'),
                           'find_coordinator': sent.versions('FindCoordinator')
                           + sent.versions('GroupCoordinator'),
                           'read': len(got)}

    sent = Sent()
    log = logging.getLogger('librdkafka')
    log.setLevel(logging.DEBUG)
    log.addHandler(sent)
    conf = {'bootstrap.servers': bootstrap, 'debug': 'protocol', 'logger': log}
    p = Producer(conf)
    p.produce(topic, b'from librdkafka')
    assert p.flush(30) == 0
    c = Consumer(dict(conf, **{'group.id': 'versions-ck',
                               'auto.offset.reset': 'earliest'}))
    c.subscribe([topic])
    got = []
    for _ in range(30):
        m = c.poll(1.0)
        if m is not None and not m.error():
            got.append(m.value())
        if len(got) >= 2:
            break
    c.close()
    out['librdkafka'] = {'metadata': sent.versions('Metadata'),
                         'find_coordinator': sent.versions('FindCoordinator'),
                         'api_versions': sent.versions('ApiVersion'),
                         'read': len(got)}
    return out


COMMANDS = {f.__name__: f for f in (api_versions, metadata, find_coordinator,
                                    clients)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
