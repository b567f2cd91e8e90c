#!/usr/bin/python3
# Kafka clients on topics stored compressed (compression.type zstd, lz4):
# consumers with and without the codecs themselves read what SQL reads,
# producers of every codec write them (test/t/072_compressed_storage.pl).
#
#   compressed_storage.py BOOTSTRAP COMMAND ARGS...   (prints JSON)
#
# Run with Debian's /usr/bin/python3 (python3-kafka, python3-confluent-kafka).
# Debian's python3-kafka comes without python3-lz4 and python3-zstandard: a
# kafka-python consumer decodes gzip (and uncompressed) batches only.

import json
import struct
import sys
import time

from message_formats import call, fetch_request
from raw_wire import connect


def _hex(b):
    return None if b is None else b.hex()


def _record(partition, offset, key, value, headers, ts):
    return [partition, offset, _hex(key), _hex(value),
            [[k, _hex(v)] for k, v in (headers or [])], ts]


def ck_read(bootstrap, topic, nparts):
    """confluent-kafka (librdkafka) reading every partition from the start
    to its end: [partition, offset, key hex, value hex, headers, timestamp
    ms] each, in partition and offset order"""
    from confluent_kafka import Consumer, TopicPartition, KafkaError
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'cs-ck',
                  'enable.auto.commit': False, 'enable.partition.eof': True,
                  'check.crcs': True, 'fetch.max.bytes': 4194304})
    parts = list(range(int(nparts)))
    c.assign([TopicPartition(topic, p, 0) for p in parts])
    out = []
    done = set()
    deadline = time.time() + 60
    while time.time() < deadline and len(done) < len(parts):
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                done.add(m.partition())
                continue
            raise Exception(m.error().str())
        out.append(_record(m.partition(), m.offset(), m.key(), m.value(),
                           m.headers(), m.timestamp()[1]))
    c.close()
    if len(done) < len(parts):
        raise Exception('partitions %s never reached their end' % sorted(set(parts) - done))
    return sorted(out, key=lambda r: (r[0], r[1]))


def kp_read(bootstrap, topic, nparts, api_version=''):
    """kafka-python (no lz4 or zstd of its own here) reading every partition
    from the start to the high watermark, as ck_read; api_version (e.g.
    0.10) makes it fetch as a client of that broker version"""
    from kafka import KafkaConsumer, TopicPartition
    extra = {'api_version_auto_timeout_ms': 30000}
    if api_version:
        extra = {'api_version': tuple(int(x) for x in api_version.split('.'))}
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                      check_crcs=True, **extra)
    tps = [TopicPartition(topic, p) for p in range(int(nparts))]
    c.assign(tps)
    ends = c.end_offsets(tps)
    for tp in tps:
        c.seek(tp, 0)
    out = []
    deadline = time.time() + 60
    while time.time() < deadline and any(c.position(tp) < ends[tp] for tp in tps):
        for batch in c.poll(timeout_ms=500).values():
            for m in batch:
                out.append(_record(m.partition, m.offset, m.key, m.value,
                                   m.headers, m.timestamp))
    c.close()
    if any(c.position(tp) < ends[tp] for tp in tps):
        raise Exception('kafka-python never reached the end')
    return sorted(out, key=lambda r: (r[0], r[1]))


def ck_produce(bootstrap, topic, codec, tag, count):
    """confluent-kafka producing count records with compression.codec codec
    (keyed, every 9th keyless, every 7th a tombstone, every 5th with
    headers, compressible JSON values), in batches: what was delivered,
    [partition, offset, key hex, value hex, headers] each"""
    from confluent_kafka import Producer
    p = Producer({'bootstrap.servers': bootstrap, 'compression.codec': codec,
                  'linger.ms': 50, 'batch.num.messages': 1000,
                  'enable.idempotence': True, 'partitioner': 'murmur2_random'})
    delivered = []
    errors = []

    def reporter(headers):
        # a delivery report has no headers: the ones sent
        def report(err, msg):
            if err:
                errors.append(err.str())
            else:
                delivered.append(_record(msg.partition(), msg.offset(), msg.key(),
                                         msg.value(), headers, None)[:5])
        return report
    for i in range(int(count)):
        key = None if i % 9 == 4 else ('%s-%d' % (tag, i % 50)).encode()
        value = None if i % 7 == 3 else json.dumps(
            {'producer': tag, 'codec': codec, 'n': i, 'status': 'order_created',
             'customer': {'id': 'cust-%d' % (i % 97), 'country': 'DE'},
             'items': [{'sku': 'sku-%d' % (i * j % 1000), 'quantity': j} for j in range(1, 4)]}).encode()
        headers = [('trace', ('%s-%d' % (tag, i)).encode()), ('bin', b'\x00\xff')] if i % 5 == 0 else None
        if headers:
            p.produce(topic, key=key, value=value, headers=headers, on_delivery=reporter(headers))
        else:
            p.produce(topic, key=key, value=value, on_delivery=reporter(None))
        p.poll(0)
    p.flush(60)
    if errors:
        raise Exception('not delivered: %s' % errors[:3])
    return sorted(delivered, key=lambda r: (r[0], r[1]))


def ck_produce_until(bootstrap, topic, codec, tag, seconds, outfile):
    """An idempotent confluent-kafka producer sending compressed batches for
    seconds (through a crash of the server: librdkafka retries), then
    flushing: each record acknowledged is a line 'ack PARTITION OFFSET KEY'
    of outfile, written as its delivery report comes"""
    from confluent_kafka import Producer
    p = Producer({'bootstrap.servers': bootstrap, 'compression.codec': codec,
                  'linger.ms': 20, 'enable.idempotence': True,
                  'message.timeout.ms': 120000, 'reconnect.backoff.max.ms': 500})
    out = open(outfile, 'w', buffering=1)

    def report(err, msg):
        if err:
            out.write('error %s %s\n' % (msg.key().decode(), err.str()))
        else:
            out.write('ack %d %d %s\n' % (msg.partition(), msg.offset(), msg.key().decode()))
    i = 0
    end = time.time() + float(seconds)
    while time.time() < end:
        for _ in range(50):
            value = json.dumps({'producer': tag, 'n': i, 'status': 'order_paid',
                                'note': 'compressible text ' * 10}).encode()
            try:
                p.produce(topic, key=('%s-%d' % (tag, i)).encode(), value=value,
                          on_delivery=report)
                i += 1
            except BufferError:
                break
        p.poll(0.02)
    left = p.flush(120)
    out.write('sent %d left %d\n' % (i, left))
    out.close()
    return {'sent': i, 'left': left}


def fetch_codecs(bootstrap, topic, partition, version):
    """Fetch of one partition from offset 0 at version (4-12): the codec
    of each record batch in the answer (0 none, 1 gzip, 2 snappy, 3 lz4,
    4 zstd) and how many records it holds; a Fetch before v10 must never
    get zstd, which those clients cannot read"""
    version, partition = int(version), int(partition)
    assert 4 <= version <= 12
    body = fetch_request(version, topic, 0, 8388608, 100)
    if partition != 0:
        # fetch_request asks for partition 0: the partition index is the
        # first field of the partition entry, after the topic's name
        name = struct.pack('>h', len(topic)) + topic.encode() if version < 12 else \
            bytes([len(topic) + 1]) + topic.encode()
        at = body.index(name) + len(name) + (4 if version < 12 else 1)
        body = body[:at] + struct.pack('>i', partition) + body[at + 4:]
    s = connect(bootstrap)
    r = call(s, 1, version, 11, body, flexible=version >= 12)
    s.close()
    r.take('>i')
    if version >= 7:
        assert r.take('>hi') == (0, 0)
    assert r.count() == 1
    r.string()
    assert r.count() == 1
    index, error, _ = r.take('>ihq')
    assert index == partition and error == 0, (index, error)
    r.take('>q')
    if version >= 5:
        r.take('>q')
    r.count()
    if version >= 11:
        r.take('>i')
    n = r.count() if version >= 12 else r.take('>i')
    data = r.data[r.pos:r.pos + max(n, 0)]
    out = []
    pos = 0
    while pos + 61 <= len(data):
        base, length = struct.unpack_from('>qi', data, pos)
        if pos + 12 + length > len(data):
            break           # a partial batch at the end of the answer
        magic = data[pos + 16]
        assert magic == 2, magic
        attributes, = struct.unpack_from('>h', data, pos + 21)
        count, = struct.unpack_from('>i', data, pos + 57)
        out.append([base, attributes & 7, count])
        pos += 12 + length
    return out


def fetch_from(bootstrap, topics, versions, offsets, max_bytes):
    """Raw Fetch of partition 0 of each topic (comma-separated) at each
    version from each offset with max_bytes: the records answered, [offset,
    key, value, headers] each ({topic: {version/offset: records}}); a Fetch
    whose limit is below one batch gets that batch whole"""
    import message_formats
    out = {}
    for t in topics.split(','):
        out[t] = {}
        for v in versions.split(','):
            for o in offsets.split(','):
                r = message_formats.fetch(bootstrap, v, t, o, max_bytes, '0')
                assert r['error'] == 0, r
                out[t]['%s/%s' % (v, o)] = r['records']
    return out


def read_all(bootstrap, topics, nparts):
    """ck_read and kp_read of each of topics (comma-separated), in one
    process: {client: {topic: records}}"""
    return {'ck': {t: ck_read(bootstrap, t, nparts) for t in topics.split(',')},
            'kp': {t: kp_read(bootstrap, t, nparts) for t in topics.split(',')}}


COMMANDS = {f.__name__: f for f in (ck_read, kp_read, read_all, fetch_from, ck_produce, ck_produce_until,
                                     fetch_codecs)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
