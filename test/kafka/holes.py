#!/usr/bin/python3
# Kafka clients reading a log with holes: offsets no record holds, inside
# batches, between batches and segments, and wider than a batch's 32-bit
# offset deltas (test/t/061_kafka_holes.pl).
#
#   holes.py BOOTSTRAP COMMAND ARGS...   (prints JSON)
#
# Run with Debian's /usr/bin/python3 (python3-kafka, python3-confluent-kafka).

import json
import struct
import sys
import time

import message_formats
from message_formats import call, fetch_request
from raw_wire import connect

# kafka-python gives a broker 2 s to answer its first ApiVersions probe by
# default, too little for a busy test machine
PROBE = dict(api_version_auto_timeout_ms=30000)


def batches(bootstrap, version, topic, offset):
    """Fetch partition 0 at offset with Fetch vVERSION (0-12: by the topic's
    name): the bounds, and what
    the records part holds, batch by batch: [baseOffset, lastOffsetDelta,
    offsets of its records] for magic 2, [offset] of each message for the
    old formats"""
    version, offset = int(version), int(offset)
    flex = version >= 12
    s = connect(bootstrap)
    r = call(s, 1, version, 7, fetch_request(version, topic, offset, 1048576, 100),
             flexible=flex)
    s.close()
    if version >= 1:
        r.take('>i')
    if version >= 7:
        assert r.take('>hi') == (0, 0)
    assert r.count() == 1
    r.string()
    assert r.count() == 1
    out = {}
    _, out['error'], out['high_watermark'] = r.take('>ihq')
    if version >= 4:
        out['last_stable'] = r.take('>q')
    if version >= 5:
        r.take('>q')
    if version >= 4:
        assert r.count() in (0, -1)
    if version >= 11:
        r.take('>i')        # preferred_read_replica
    n = r.count() if flex else r.take('>i')
    data = r.data[r.pos:r.pos + max(n, 0)]
    out['batches'] = []
    pos = 0
    while pos + 17 <= len(data):
        base, length = struct.unpack_from('>qi', data, pos)
        magic = data[pos + 16]
        if magic == 2:
            from kafka.record.default_records import DefaultRecordBatch
            b = DefaultRecordBatch(data[pos:pos + 12 + length])
            assert b.validate_crc()
            out['batches'].append([b.base_offset, b.last_offset_delta,
                                   [rec.offset for rec in b]])
        else:
            out['batches'].append([base])
        pos += 12 + length
    out['magic'] = data[16] if len(data) > 16 else None
    return out


def kp_read(bootstrap, topic, offset, until, api_version=''):
    """kafka-python consumer without a group, reading partition 0 from
    offset until its position reaches until (at most 30 s): offsets read,
    and its position at the end.  api_version (e.g. 0.10) makes it use the
    Fetch and message format of that broker version."""
    from kafka import KafkaConsumer, TopicPartition
    extra = dict(PROBE)
    if api_version:
        extra = {'api_version': tuple(int(x) for x in api_version.split('.'))}
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                      check_crcs=True, **extra)
    tp = TopicPartition(topic, 0)
    c.assign([tp])
    c.seek(tp, int(offset))
    offsets = []
    deadline = time.time() + 30
    while time.time() < deadline and c.position(tp) < int(until):
        for batch in c.poll(timeout_ms=500).values():
            offsets.extend(m.offset for m in batch)
    out = {'offsets': offsets, 'position': c.position(tp)}
    c.close()
    return out


def ck_read(bootstrap, topic, offset):
    """confluent-kafka (librdkafka) consumer reading partition 0 from offset
    until it reports the partition's end (at most 30 s): offsets read, and
    whether it got there"""
    from confluent_kafka import Consumer, TopicPartition, KafkaError
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'holes-ck',
                  'enable.auto.commit': False, 'enable.partition.eof': True})
    c.assign([TopicPartition(topic, 0, int(offset))])
    offsets = []
    eof = None
    deadline = time.time() + 30
    while time.time() < deadline and eof is None:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                eof = m.offset()
                break
            raise Exception(m.error().str())
        offsets.append(m.offset())
    pos = c.position([TopicPartition(topic, 0)])[0].offset
    c.close()
    return {'offsets': offsets, 'eof': eof, 'position': pos}


def kp_times(bootstrap, topic, *times_ms):
    """kafka-python offsets_for_times of partition 0: [offset, timestamp]
    or None for each time"""
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, **PROBE)
    tp = TopicPartition(topic, 0)
    out = []
    for t in times_ms:
        found = c.offsets_for_times({tp: int(t)})[tp]
        out.append([found.offset, found.timestamp] if found else None)
    c.close()
    return out


def ck_times(bootstrap, topic, *times_ms):
    """confluent-kafka offsets_for_times of partition 0: the offset for
    each time (-1 when none)"""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'holes-ck'})
    out = [c.offsets_for_times([TopicPartition(topic, 0, int(t))], 30)[0].offset
           for t in times_ms]
    c.close()
    return out


COMMANDS = {f.__name__: f for f in (batches, kp_read, ck_read, kp_times, ck_times)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
