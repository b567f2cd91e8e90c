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
from kafka.record.legacy_records import LegacyRecordBatchBuilder


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


def message_set(magic, codec=0):
    """kafka-python's MessageSet of two messages of magic (0 or 1),
    compressed in a wrapper when codec (1: gzip) is set"""
    b = LegacyRecordBatchBuilder(magic, codec, 1 << 20)
    b.append(0, timestamp=None, key=b'k1', value=b'v1')
    b.append(1, timestamp=None, key=None, value=b'v2')
    return bytes(b.build())


def compact_data(b):
    if b is None:
        return uvarint(0)
    return uvarint(len(b) + 1) + b


def produce(v):
    if v >= 9:
        # flexible: compact strings, arrays and bytes, empty tagged fields
        partitions = [(0, batch()), (1, None)]
        topic = (compact_string('orders') + uvarint(len(partitions) + 1)
                 + b''.join(i32(p) + compact_data(r) + uvarint(0)
                            for p, r in partitions) + uvarint(0))
        return (uvarint(0) + i16(-1) + i32(30000) + uvarint(2) + topic
                + uvarint(0))
    if v < 3:
        records = [(0, message_set(0 if v < 2 else 1)),
                   (1, message_set(0 if v < 2 else 1, 1))]
    else:
        records = [(0, batch()), (1, None)]
    topics = array([('orders', records)],
                   lambda t: string(t[0]) + array(
                       t[1], lambda p: i32(p[0]) + data(p[1])))
    return (string(None) if v >= 3 else b'') + i16(-1) + i32(30000) + topics


def fetch(v):
    flex = v >= 12

    def arr(items, encode):
        if flex:
            return uvarint(len(items) + 1) + b''.join(encode(x) for x in items)
        return array(items, encode)

    def tags():
        return uvarint(0) if flex else b''

    def partition(p):
        return (i32(p) + (i32(-1) if v >= 9 else b'') + i64(5)
                + (i32(-1) if v >= 12 else b'')
                + (i64(-1) if v >= 5 else b'') + i32(1048576) + tags())

    def topic(t):
        name = (bytes(range(16)) if v >= 13 else
                compact_string(t[0]) if flex else string(t[0]))
        return name + arr(t[1], partition) + tags()
    out = ((i32(-1) if v <= 14 else b'') + i32(500) + i32(1)
           + (i32(52428800) if v >= 3 else b'') + (i8(1) if v >= 4 else b'')
           + (i32(0) + i32(-1) if v >= 7 else b'')
           + arr([('orders', [0, 1])], topic))
    if v >= 7:
        def forgotten(t):
            name = (bytes(range(16, 32)) if v >= 13 else
                    compact_string(t[0]) if flex else string(t[0]))
            return name + arr(t[1], i32) + tags()
        out += arr([('old', [2])], forgotten)
    if v >= 11:
        out += compact_string('rack1') if flex else string('rack1')
    if flex:
        out += uvarint(0)
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


def compact_array(items, encode):
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b''.join(encode(x) for x in items)


def metadata(v):
    if v < 9:
        out = array(['orders', 'events'] if v != 1 else None, string)
    else:
        def topic(name):
            return ((bytes(range(16)) if v >= 10 else b'')
                    + compact_string(name) + uvarint(0))
        out = compact_array(['orders', 'events'] if v != 11 else None, topic)
    if v >= 4:
        out += i8(0)
    if 8 <= v <= 10:
        out += i8(1)
    if v >= 8:
        out += i8(1)
    if v >= 9:
        out += uvarint(0)
    return out


def find_coordinator(v):
    if v < 3:
        return string('g1') + (i8(0) if v >= 1 else b'')
    if v == 3:
        return compact_string('g1') + i8(0) + uvarint(0)
    return i8(0) + compact_array(['g1', 'g2'], compact_string) + uvarint(0)
def flex_string(s, flexible):
    """a string, compact in a flexible version (None: null)"""
    if not flexible:
        return string(s)
    if s is None:
        return uvarint(0)
    return compact_string(s)


def flex_array(items, encode, flexible):
    """an array, compact in a flexible version, each element's empty
    tagged fields after it when encode gives a struct (tagged=True)"""
    if not flexible:
        return array(items, encode)
    if items is None:
        return uvarint(0)
    return uvarint(len(items) + 1) + b''.join(encode(x) for x in items)


TAGS = uvarint(0)       # an empty tagged-fields section


def flex_data(b, flexible):
    """bytes, compact in a flexible version"""
    if not flexible:
        return data(b)
    return uvarint(len(b) + 1) + b


def offset_commit(v):
    f = v >= 8
    out = flex_string('g1', f)
    if v >= 1:
        out += i32(3) + flex_string('member-1', f)
    if v >= 7:
        out += flex_string('instance-1' if v == 9 else None, f)
    if 2 <= v <= 4:
        out += i64(-1)

    def partition(p):
        return (i32(p[0]) + i64(p[1]) + (i32(-1) if v >= 6 else b'')
                + (i64(1700000000000) if v == 1 else b'')
                + flex_string(p[2], f) + (TAGS if f else b''))
    return out + flex_array(
        [('orders', [(0, 10, 'meta'), (1, 20, None)])],
        lambda t: flex_string(t[0], f) + flex_array(t[1], partition, f)
        + (TAGS if f else b''), f) + (TAGS if f else b'')


def offset_fetch(v):
    f = v >= 6

    def topics(every):
        return flex_array(None if every else [('orders', [0, 1])],
                          lambda t: flex_string(t[0], f)
                          + flex_array(t[1], i32, f) + (TAGS if f else b''), f)
    if v >= 8:
        def group(g):
            return (flex_string(g[0], f)
                    + (flex_string(None, f) + i32(-1) if v >= 9 else b'')
                    + topics(g[1]) + TAGS)
        return flex_array([('g1', False), ('g2', True)], group, f) + i8(0) + TAGS
    out = flex_string('g1', f) + topics(v >= 2 and v % 2 == 1)
    if v >= 7:
        out += i8(1)
    return out + (TAGS if f else b'')


def join_group(v):
    f = v >= 6
    out = flex_string('g1', f) + i32(6000)
    if v >= 1:
        out += i32(30000)
    out += flex_string('', f)
    if v >= 5:
        out += flex_string('instance-1' if v >= 7 else None, f)
    out += flex_string('consumer', f) + flex_array(
        [('range', SUBSCRIPTION), ('roundrobin', SUBSCRIPTION)],
        lambda p: flex_string(p[0], f) + flex_data(p[1], f) + (TAGS if f else b''), f)
    if v >= 8:
        out += flex_string('rejoining', f)
    return out + (TAGS if f else b'')


def member_request(v, instance_from, flexible_from=None):
    f = flexible_from is not None and v >= flexible_from
    out = flex_string('g1', f) + i32(3) + flex_string('member-1', f)
    if v >= instance_from:
        out += flex_string(None, f)
    return out


def sync_group(v):
    f = v >= 4
    out = member_request(v, 3, 4)
    if v >= 5:
        out += flex_string('consumer', f) + flex_string('range', f)
    return out + flex_array(
        [('member-1', ASSIGNMENT), ('member-2', b'')],
        lambda a: flex_string(a[0], f) + flex_data(a[1], f) + (TAGS if f else b''),
        f) + (TAGS if f else b'')


def leave_group(v):
    f = v >= 4
    if v < 3:
        return string('g1') + string('member-1')
    return flex_string('g1', f) + flex_array(
        [('member-1', None), ('', 'instance-1')],
        lambda m: flex_string(m[0], f) + flex_string(m[1], f)
        + (flex_string('shutting down', f) if v >= 5 else b'')
        + (TAGS if f else b''), f) + (TAGS if f else b'')


def list_groups(v):
    f = v >= 3
    out = b''
    if v >= 4:
        out += flex_array(['Stable', 'Empty'], lambda x: flex_string(x, f), f)
    if v >= 5:
        out += flex_array(['classic'], lambda x: flex_string(x, f), f)
    return out + (TAGS if f else b'')


def create_topics(v):
    """flexible from 5; configs with a null value, assignments"""
    f = v >= 5
    tags = TAGS if f else b''

    def topic(t):
        return (flex_string(t[0], f) + i32(t[1]) + i16(-1)
                + flex_array(t[2], lambda a: i32(a[0])
                             + flex_array(a[1], i32, f) + tags, f)
                + flex_array(t[3], lambda c: flex_string(c[0], f)
                             + flex_string(c[1], f) + tags, f)
                + tags)
    out = flex_array([('t2', 4, [], [('retention.ms', '60000'), ('cleanup.policy', None)]),
                      ('t3', -1, [(0, [0]), (1, [0])], [])], topic, f) + i32(30000)
    if v >= 1:
        out += i8(1)
    return out + tags


def delete_topics(v):
    """flexible from 4; v6 names topics by name or by topic id"""
    f = v >= 4
    tags = TAGS if f else b''
    if v >= 6:
        topics = flex_array([('t2', bytes(16)), (None, bytes(range(1, 17)))],
                            lambda t: flex_string(t[0], f) + t[1] + tags, f)
    else:
        topics = flex_array(['t2', 'nope'], lambda t: flex_string(t, f), f)
    return topics + i32(30000) + tags


def describe_configs(v):
    """flexible from 4; a topic with every key (null), the broker with two"""
    f = v >= 4
    tags = TAGS if f else b''
    out = flex_array([(2, 'orders', None), (4, '1', ['num.partitions', 'broker.id'])],
                     lambda r: i8(r[0]) + flex_string(r[1], f)
                     + flex_array(r[2], lambda k: flex_string(k, f), f) + tags, f)
    if v >= 1:
        out += i8(1)
    if v >= 3:
        out += i8(0)
    return out + tags


def alter_configs(v, incremental):
    """AlterConfigs (flexible from 2) or IncrementalAlterConfigs (from 1)"""
    f = v >= (1 if incremental else 2)
    tags = TAGS if f else b''
    configs = [('retention.ms', 0, '60000'), ('segment.ms', 1, None)]
    return (flex_array([(2, 'orders', configs)],
                       lambda r: i8(r[0]) + flex_string(r[1], f)
                       + flex_array(r[2], lambda c: flex_string(c[0], f)
                                    + (i8(c[1]) if incremental else b'')
                                    + flex_string(c[2], f) + tags, f) + tags, f)
            + i8(0) + tags)


def add_partitions_to_txn(v):
    """v0-3 one transaction (librdkafka 2.0.2 sends v0), v4+ a batch of
    them with VerifyOnly (a broker's); flexible from 3"""
    f = v >= 3
    tags = TAGS if f else b''

    def topic(t):
        return flex_string(t[0], f) + flex_array(t[1], i32, f) + tags
    topics = [('orders', [0, 1]), ('logs', [2])]
    if v >= 4:
        return flex_array([('txn-1', 4097, 3, False, topics),
                           ('txn-2', 4098, 0, True, [])],
                          lambda x: flex_string(x[0], f) + i64(x[1]) + i16(x[2])
                          + i8(1 if x[3] else 0) + flex_array(x[4], topic, f)
                          + tags, f) + tags
    return (flex_string('txn-1', f) + i64(4097) + i16(3)
            + flex_array(topics, topic, f) + tags)


def txn_request(v, last):
    """AddOffsetsToTxn (last: a group id) or EndTxn (last: committed),
    flexible from 3"""
    f = v >= 3
    return (flex_string('txn-1', f) + i64(4097) + i16(3)
            + (flex_string(last, f) if isinstance(last, str) else i8(last))
            + (TAGS if f else b''))


def txn_offset_commit(v):
    """flexible from 3, which adds the member's generation, id and
    instance id; v2 adds each partition's leader epoch"""
    f = v >= 3
    tags = TAGS if f else b''
    out = flex_string('txn-1', f) + flex_string('g1', f) + i64(4097) + i16(3)
    if v >= 3:
        out += i32(5) + flex_string('member-1', f) + flex_string(None, f)

    def partition(p):
        return (i32(p[0]) + i64(p[1]) + (i32(-1) if v >= 2 else b'')
                + flex_string(p[2], f) + tags)
    return out + flex_array(
        [('orders', [(0, 10, 'meta'), (1, 20, None)])],
        lambda t: flex_string(t[0], f) + flex_array(t[1], partition, f) + tags,
        f) + tags


def list_transactions(v):
    """flexible; v1 adds DurationFilter"""
    return (compact_array(['Ongoing', 'PrepareCommit'], compact_string)
            + uvarint(2) + i64(4097) + (i64(60000) if v >= 1 else b'') + TAGS)


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
    # kafka-python told the broker is 0.10: Produce v2 of magic 1
    'produce_v2_kafka_python': kp(ProduceRequest[2](
        1, 30000, [('orders', [(0, message_set(1, 1))])])),
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
for v in range(0, 12):
    SEEDS['produce_v%d' % v] = (0, v, produce(v))
for v in range(0, 18):
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
for v in range(0, 13):
    SEEDS['metadata_v%d' % v] = (3, v, metadata(v))
for v in range(0, 10):
    SEEDS['offset_commit_v%d' % v] = (8, v, offset_commit(v))
for v in range(0, 10):
    SEEDS['offset_fetch_v%d' % v] = (9, v, offset_fetch(v))
for v in range(0, 6):
    SEEDS['find_coordinator_v%d' % v] = (10, v, find_coordinator(v))
for v in range(0, 10):
    SEEDS['join_group_v%d' % v] = (11, v, join_group(v))
for v in range(0, 5):
    SEEDS['heartbeat_v%d' % v] = (12, v, member_request(v, 3, 4)
                                  + (TAGS if v >= 4 else b''))
for v in range(0, 6):
    SEEDS['leave_group_v%d' % v] = (13, v, leave_group(v))
for v in range(0, 6):
    SEEDS['sync_group_v%d' % v] = (14, v, sync_group(v))
for v in range(0, 6):
    SEEDS['describe_groups_v%d' % v] = (
        15, v, flex_array(['g1', 'g2'], lambda g: flex_string(g, v >= 5), v >= 5)
        + (i8(1) if v >= 3 else b'') + (TAGS if v >= 5 else b''))
for v in range(0, 6):
    SEEDS['list_groups_v%d' % v] = (16, v, list_groups(v))
for v in range(0, 3):
    SEEDS['delete_groups_v%d' % v] = (
        42, v, flex_array(['g1', 'g2'], lambda g: flex_string(g, v >= 2), v >= 2)
        + (TAGS if v >= 2 else b''))
SEEDS['offset_delete_v0'] = (47, 0, string('g1') + array(
    [('orders', [0, 1])], lambda t: string(t[0]) + array(t[1], i32)))
for v in range(0, 2):
    SEEDS['sasl_handshake_v%d' % v] = (17, v, string('SCRAM-SHA-256'))
for v in range(0, 3):
    SEEDS['api_versions_v%d' % v] = (18, v, b'')
# librdkafka's first request on every connection (v3), and Kafka 3.9's (v4)
for v in range(3, 5):
    SEEDS['api_versions_v%d' % v] = (18, v, compact_string('librdkafka')
                                     + compact_string('2.0.2') + uvarint(0))
for v in range(0, 8):
    SEEDS['create_topics_v%d' % v] = (19, v, create_topics(v))
for v in range(0, 7):
    SEEDS['delete_topics_v%d' % v] = (20, v, delete_topics(v))
for v in range(0, 5):
    SEEDS['describe_configs_v%d' % v] = (32, v, describe_configs(v))
for v in range(0, 3):
    SEEDS['alter_configs_v%d' % v] = (33, v, alter_configs(v, False))
for v in range(0, 2):
    SEEDS['incremental_alter_configs_v%d' % v] = (44, v, alter_configs(v, True))
for v in range(0, 6):
    SEEDS['init_producer_id_v%d' % v] = (22, v, (b'\x00' if v >= 2 else string(None)) + i32(60000)
                                        + (i64(-1) + i16(-1) if v >= 3 else b'')
                                        + (b'\x00' if v >= 2 else b''))
for v in range(0, 3):
    token = b'n,,n=alice,r=abcdefghijklmnop'
    SEEDS['sasl_authenticate_v%d' % v] = (36, v, uvarint(len(token) + 1) + token + b'\x00'
                                         if v >= 2 else data(token))

for v in range(0, 6):
    SEEDS['add_partitions_to_txn_v%d' % v] = (24, v, add_partitions_to_txn(v))
for v in range(0, 5):
    SEEDS['add_offsets_to_txn_v%d' % v] = (25, v, txn_request(v, 'g1'))
for v in range(0, 5):
    SEEDS['end_txn_v%d' % v] = (26, v, txn_request(v, 1))
for v in range(0, 5):
    SEEDS['txn_offset_commit_v%d' % v] = (28, v, txn_offset_commit(v))
SEEDS['describe_transactions_v0'] = (65, 0, compact_array(['txn-1', 'txn-2'], compact_string)
                                     + TAGS)
for v in range(0, 2):
    SEEDS['list_transactions_v%d' % v] = (66, v, list_transactions(v))


def main(corpus):
    os.makedirs(corpus, exist_ok=True)
    for name, (key, version, body) in sorted(SEEDS.items()):
        with open(os.path.join(corpus, name), 'wb') as f:
            f.write(i16(key) + i16(version) + body)


if __name__ == '__main__':
    main(sys.argv[1])
