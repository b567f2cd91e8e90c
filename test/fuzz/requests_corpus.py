#!/usr/bin/python3
# The seed corpus of fuzz_requests (test/fuzz/corpus/requests/): one
# request of each API at each version offered, as an API key and version
# (int16 each) followed by the body.
#
#   requests_corpus.py CORPUS_DIR
#
# The versions kafka-python 2.0.2 sends are encoded by kafka-python itself
# (its request classes, and its RecordBatch builder for Produce), the others
# field by field from Kafka's message definitions, with the values a client
# would send.  test/wire/requests_test.c checks that each seed parses, to
# its last byte.
#
# Run with Debian's /usr/bin/python3 (python3-kafka).

import os
import struct
import sys

from kafka.protocol.admin import ApiVersionRequest
from kafka.protocol.commit import (GroupCoordinatorRequest, OffsetCommitRequest,
                                   OffsetFetchRequest)
from kafka.protocol.fetch import FetchRequest
from kafka.protocol.group import (HeartbeatRequest, JoinGroupRequest,
                                  LeaveGroupRequest, SyncGroupRequest)
from kafka.protocol.metadata import MetadataRequest
from kafka.protocol.offset import OffsetRequest
from kafka.protocol.produce import ProduceRequest
from kafka.record.default_records import DefaultRecordBatchBuilder


def i8(v):
    return struct.pack('>b', v)


def i16(v):
    return struct.pack('>h', v)


def i32(v):
    return struct.pack('>i', v)


def i64(v):
    return struct.pack('>q', v)


def string(s):
    if s is None:
        return i16(-1)
    s = s.encode()
    return i16(len(s)) + s


def data(b):
    if b is None:
        return i32(-1)
    return i32(len(b)) + b


def array(items, encode):
    if items is None:
        return i32(-1)
    return i32(len(items)) + b''.join(encode(x) for x in items)


def uvarint(n):
    out = b''
    while n >= 0x80:
        out += bytes([(n & 0x7f) | 0x80])
        n >>= 7
    return out + bytes([n])


def compact_string(s):
    s = s.encode()
    return uvarint(len(s) + 1) + s


def batch():
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    b.append(0, timestamp=None, key=b'k1', value=b'v1', headers=[('h', b'x')])
    b.append(1, timestamp=None, key=None, value=b'v2', headers=[])
    return bytes(b.build())


SUBSCRIPTION = i16(0) + array(['orders'], string) + data(b'')
ASSIGNMENT = i16(0) + array([('orders', [0, 1])],
                            lambda t: string(t[0]) + array(t[1], i32)) + data(b'')


def produce(v):
    topics = array([('orders', [(0, batch()), (1, None)])],
                   lambda t: string(t[0]) + array(
                       t[1], lambda p: i32(p[0]) + data(p[1])))
    return string(None) + i16(-1) + i32(30000) + topics


def fetch(v):
    def partition(p):
        return (i32(p) + (i32(-1) if v >= 9 else b'') + i64(5)
                + (i64(-1) if v >= 5 else b'') + i32(1048576))
    out = (i32(-1) + i32(500) + i32(1) + i32(52428800) + i8(1)
           + (i32(0) + i32(-1) if v >= 7 else b'')
           + array([('orders', [0, 1])], lambda t: string(t[0]) + array(t[1], partition)))
    if v >= 7:
        out += array([('old', [2])], lambda t: string(t[0]) + array(t[1], i32))
    if v >= 11:
        out += string('rack1')
    return out


def compact_array(items, encode):
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b''.join(encode(x) for x in items)


def list_offsets(v):
    """v0 with max_num_offsets, v4+ with leader epochs, flexible from 6"""
    flexible = v >= 6
    tags = b'\x00' if flexible else b''
    name = compact_string if flexible else string
    arr = compact_array if flexible else array
    times = [(0, -1), (1, -2), (2, 1700000000000)]
    if v >= 7:
        times.append((3, -3))
    if v >= 8:
        times.append((4, -4))
    if v >= 9:
        times.append((5, -5))

    def partition(p):
        return (i32(p[0]) + (i32(-1) if v >= 4 else b'') + i64(p[1])
                + (i32(1) if v == 0 else b'') + tags)
    return (i32(-1) + (i8(1) if v >= 2 else b'')
            + arr([('orders', times)],
                  lambda t: name(t[0]) + arr(t[1], partition) + tags)
            + tags)


def offset_for_leader_epoch(v):
    """v2+ with the current leader epoch, v3+ the replica id, flexible from 4"""
    flexible = v >= 4
    tags = b'\x00' if flexible else b''
    name = compact_string if flexible else string
    arr = compact_array if flexible else array

    def partition(p):
        return i32(p) + (i32(-1) if v >= 2 else b'') + i32(0) + tags
    return ((i32(-1) if v >= 3 else b'')
            + arr([('orders', [0, 1])], lambda t: name(t[0]) + arr(t[1], partition) + tags)
            + tags)


def delete_records(v):
    """flexible from 2"""
    flexible = v >= 2
    tags = b'\x00' if flexible else b''
    name = compact_string if flexible else string
    arr = compact_array if flexible else array
    return (arr([('orders', [(0, 5), (1, -1)])],
                lambda t: name(t[0]) + arr(t[1], lambda p: i32(p[0]) + i64(p[1]) + tags) + tags)
            + i32(30000) + tags)


def create_partitions(v):
    """flexible from 2; assignments null or given"""
    flexible = v >= 2
    tags = b'\x00' if flexible else b''
    name = compact_string if flexible else string
    arr = compact_array if flexible else array
    return (arr([('orders', 4, None), ('events', 3, [[1], [1]])],
                lambda t: name(t[0]) + i32(t[1])
                + arr(t[2], lambda a: arr(a, i32) + tags) + tags)
            + i32(30000) + i8(0) + tags)


def describe_log_dirs(v):
    """flexible from 2; v0 and v2 for every topic (null)"""
    flexible = v >= 2
    tags = b'\x00' if flexible else b''
    name = compact_string if flexible else string
    arr = compact_array if flexible else array
    topics = None if v in (0, 2) else [('orders', [0, 1])]
    return arr(topics, lambda t: name(t[0]) + arr(t[1], i32) + tags) + tags


def metadata(v):
    out = array(['orders', 'events'] if v != 1 else None, string)
    if v >= 4:
        out += i8(0)
    return out


def offset_commit(v):
    out = string('g1') + i32(3) + string('member-1')
    if v >= 7:
        out += string(None)
    if v <= 4:
        out += i64(-1)
    return out + array([('orders', [(0, 10, 'meta'), (1, 20, None)])],
                       lambda t: string(t[0]) + array(
                           t[1], lambda p: i32(p[0]) + i64(p[1])
                           + (i32(-1) if v >= 6 else b'') + string(p[2])))


def offset_fetch(v):
    if v >= 2 and v % 2:
        return string('g1') + array(None, string)      # every topic
    return string('g1') + array([('orders', [0, 1])],
                                lambda t: string(t[0]) + array(t[1], i32))


def join_group(v):
    out = string('g1') + i32(6000)
    if v >= 1:
        out += i32(30000)
    out += string('')
    if v >= 5:
        out += string(None)
    return out + string('consumer') + array(
        [('range', SUBSCRIPTION), ('roundrobin', SUBSCRIPTION)],
        lambda p: string(p[0]) + data(p[1]))


def member_request(v, instance_from):
    out = string('g1') + i32(3) + string('member-1')
    if v >= instance_from:
        out += string(None)
    return out


def sync_group(v):
    return member_request(v, 3) + array(
        [('member-1', ASSIGNMENT), ('member-2', b'')],
        lambda a: string(a[0]) + data(a[1]))


def create_topics(v):
    def topic(t):
        return (string(t[0]) + i32(t[1]) + i16(-1)
                + array(t[2], lambda a: i32(a[0]) + array(a[1], i32))
                + array(t[3], lambda c: string(c[0]) + string(c[1])))
    out = array([('t2', 4, [], [('retention.ms', '60000'), ('cleanup.policy', None)]),
                 ('t3', -1, [(0, [0]), (1, [0])], [])], topic) + i32(30000)
    if v >= 1:
        out += i8(1)
    return out


def kp(request):
    """a request of kafka-python's, as it encodes it"""
    return request.API_KEY, request.API_VERSION, request.encode()


SEEDS = {
    # what kafka-python sends (docs/architecture.md, Kafka protocol)
    'api_versions_v0_kafka_python': kp(ApiVersionRequest[0]()),
    'metadata_v0_kafka_python': kp(MetadataRequest[0]([])),
    'metadata_v1_kafka_python': kp(MetadataRequest[1](None)),
    'produce_v7_kafka_python': kp(ProduceRequest[7](
        None, 1, 30000, [('orders', [(0, batch())])])),
    'fetch_v4_kafka_python': kp(FetchRequest[4](
        -1, 500, 1, 52428800, 0, [('orders', [(0, 5, 1048576)])])),
    'list_offsets_v1_kafka_python': kp(OffsetRequest[1](
        -1, [('orders', [(0, -1), (1, -2)])])),
    'find_coordinator_v0_kafka_python': kp(GroupCoordinatorRequest[0]('g1')),
    'join_group_v2_kafka_python': kp(JoinGroupRequest[2](
        'g1', 10000, 300000, '', 'consumer', [('range', SUBSCRIPTION)])),
    'sync_group_v1_kafka_python': kp(SyncGroupRequest[1](
        'g1', 1, 'member-1', [('member-1', ASSIGNMENT)])),
    'heartbeat_v1_kafka_python': kp(HeartbeatRequest[1]('g1', 1, 'member-1')),
    'leave_group_v1_kafka_python': kp(LeaveGroupRequest[1]('g1', 'member-1')),
    'offset_commit_v2_kafka_python': kp(OffsetCommitRequest[2](
        'g1', 1, 'member-1', -1, [('orders', [(0, 10, 'meta')])])),
    'offset_fetch_v1_kafka_python': kp(OffsetFetchRequest[1](
        'g1', [('orders', [0, 1])])),
}

# every version offered, from Kafka's message definitions
for v in range(3, 8):
    SEEDS['produce_v%d' % v] = (0, v, produce(v))
for v in range(4, 12):
    SEEDS['fetch_v%d' % v] = (1, v, fetch(v))
for v in range(0, 10):
    SEEDS['list_offsets_v%d' % v] = (2, v, list_offsets(v))
for v in range(0, 3):
    SEEDS['delete_records_v%d' % v] = (21, v, delete_records(v))
for v in range(0, 4):
    SEEDS['create_partitions_v%d' % v] = (37, v, create_partitions(v))
for v in range(0, 4):
    if v >= 2:
        SEEDS['describe_acls_v%d' % v] = (29, v, i8(2) + compact_string('orders') + i8(3)
                                          + b'\x00' + compact_string('*') + i8(1) + i8(1) + b'\x00')
    else:
        SEEDS['describe_acls_v%d' % v] = (29, v, i8(1) + string(None) + (i8(1) if v >= 1 else b'')
                                          + string('User:app') + string(None) + i8(3) + i8(3))
for v in range(0, 5):
    SEEDS['describe_log_dirs_v%d' % v] = (35, v, describe_log_dirs(v))
for v in range(0, 2):
    SEEDS['describe_cluster_v%d' % v] = (60, v, i8(1) + (i8(1) if v >= 1 else b'') + b'\x00')
for v in range(0, 5):
    SEEDS['offset_for_leader_epoch_v%d' % v] = (23, v, offset_for_leader_epoch(v))
for v in range(0, 5):
    SEEDS['metadata_v%d' % v] = (3, v, metadata(v))
for v in range(2, 8):
    SEEDS['offset_commit_v%d' % v] = (8, v, offset_commit(v))
for v in range(1, 6):
    SEEDS['offset_fetch_v%d' % v] = (9, v, offset_fetch(v))
for v in range(0, 3):
    SEEDS['find_coordinator_v%d' % v] = (10, v, string('g1') + (i8(0) if v >= 1 else b''))
for v in range(0, 6):
    SEEDS['join_group_v%d' % v] = (11, v, join_group(v))
for v in range(0, 4):
    SEEDS['heartbeat_v%d' % v] = (12, v, member_request(v, 3))
for v in range(0, 2):
    SEEDS['leave_group_v%d' % v] = (13, v, string('g1') + string('member-1'))
for v in range(0, 4):
    SEEDS['sync_group_v%d' % v] = (14, v, sync_group(v))
for v in range(0, 5):
    SEEDS['describe_groups_v%d' % v] = (15, v, array(['g1', 'g2'], string)
                                        + (i8(1) if v >= 3 else b''))
for v in range(0, 3):
    SEEDS['list_groups_v%d' % v] = (16, v, b'')
for v in range(0, 2):
    SEEDS['sasl_handshake_v%d' % v] = (17, v, string('SCRAM-SHA-256'))
for v in range(0, 3):
    SEEDS['api_versions_v%d' % v] = (18, v, b'')
# librdkafka's first request on every connection
SEEDS['api_versions_v3'] = (18, 3, compact_string('librdkafka')
                            + compact_string('2.0.2') + uvarint(0))
for v in range(0, 5):
    SEEDS['create_topics_v%d' % v] = (19, v, create_topics(v))
for v in range(0, 2):
    SEEDS['delete_topics_v%d' % v] = (20, v, array(['t2', 'nope'], string) + i32(30000))
for v in range(0, 6):
    SEEDS['init_producer_id_v%d' % v] = (22, v, (b'\x00' if v >= 2 else string(None)) + i32(60000)
                                        + (i64(-1) + i16(-1) if v >= 3 else b'')
                                        + (b'\x00' if v >= 2 else b''))
for v in range(0, 3):
    token = b'n,,n=alice,r=abcdefghijklmnop'
    SEEDS['sasl_authenticate_v%d' % v] = (36, v, uvarint(len(token) + 1) + token + b'\x00'
                                         if v >= 2 else data(token))


def main(corpus):
    os.makedirs(corpus, exist_ok=True)
    for name, (key, version, body) in sorted(SEEDS.items()):
        with open(os.path.join(corpus, name), 'wb') as f:
            f.write(i16(key) + i16(version) + body)


if __name__ == '__main__':
    main(sys.argv[1])
