"""ListOffsets at every version, and the admin APIs, for
test/t/054_kafka_admin_apis.pl.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2, confluent-kafka
1.7.0):

    admin_apis.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document: what the server answered.  Requests
are written byte by byte from Kafka's message definitions (flexible
versions with request header v2 and compact encodings), so that every
version is asked, not only those a client library picks.
"""
import json
import struct
import sys
import time

import raw_wire
from raw_wire import Dec, Enc, connect, uvarint


def call(sock, key, version, first_flexible, body, corr=1):
    """One request; its response body, as a Dec"""
    flexible = first_flexible is not None and version >= first_flexible
    d = Dec(raw_wire.call(sock, key, version, corr, body, 'admin-apis-test', flexible),
            flexible)
    d.tags()                    # response header v1
    return d


# ---- ListOffsets (key 2, v0-9, flexible from 6)

def list_offsets_request(version, topic, asks, replica=-1):
    """asks: [(partition, timestamp, max_num_offsets)]"""
    e = Enc(version >= 6)

    def partition(p):
        return (struct.pack('>i', p[0])
                + (struct.pack('>i', -1) if version >= 4 else b'')
                + struct.pack('>q', p[1])
                + (struct.pack('>i', p[2]) if version == 0 else b'')
                + e.tags())
    return (struct.pack('>i', replica)
            + (struct.pack('>b', 1) if version >= 2 else b'')
            + e.array([topic], lambda t: e.string(t) + e.array(asks, partition) + e.tags())
            + e.tags())


def list_offsets_response(d, version):
    if version >= 2:
        d.i32()

    def partition():
        p = {'partition': d.i32(), 'error': d.i16()}
        if version == 0:
            p['offsets'] = d.array(d.i64)
        else:
            p['timestamp'] = d.i64()
            p['offset'] = d.i64()
        if version >= 4:
            p['leader_epoch'] = d.i32()
        d.tags()
        return p

    def topic():
        t = {'name': d.string(), 'partitions': d.array(partition)}
        d.tags()
        return t
    topics = d.array(topic)
    d.tags()
    d.done()
    return topics


def list_offsets(bootstrap, topic, at_ms):
    """Every version of ListOffsets asks partition 0 of topic for the
    latest, earliest and at_ms's offsets, and each special timestamp from
    the version that has it (-3 v7, -4 v8, -5 v9), and partition 9 (none);
    v0 for up to 1 and up to 0 offsets.  Answers by version."""
    out = {}
    sock = connect(bootstrap)
    for v in range(0, 10):
        asks = [(0, -1, 1), (0, -2, 1), (0, int(at_ms), 1)]
        if v == 0:
            asks += [(0, -1, 0), (0, 4102444800000, 1)]
        if v >= 7:
            asks.append((0, -3, 1))
        if v >= 8:
            asks.append((0, -4, 1))
        if v >= 9:
            asks.append((0, -5, 1))
        asks.append((9, -1, 1))
        d = call(sock, 2, v, 6, list_offsets_request(v, topic, asks), corr=v + 1)
        out[str(v)] = list_offsets_response(d, v)[0]['partitions']
    sock.close()
    return out


def list_offsets_unknown(bootstrap, version):
    """A topic that does not exist, at version: its partition's answer"""
    sock = connect(bootstrap)
    d = call(sock, 2, version, 6, list_offsets_request(version, 'no_such_topic', [(0, -1, 1)]))
    return list_offsets_response(d, version)[0]['partitions'][0]


def list_offsets_v10(bootstrap):
    """A version past 9 closes the connection"""
    sock = connect(bootstrap)
    try:
        call(sock, 2, 10, 6, list_offsets_request(9, 'x', [(0, -1, 1)]) + b'\x00\x00\x00\x00')
        return 'answered'
    except (EOFError, ConnectionResetError):
        return 'closed'


def clients_offsets(bootstrap, topic, at_ms):
    """ListOffsets as the clients ask it: kafka-python's consumer
    (beginning, end, by time) and confluent-kafka's (watermarks, by
    time)"""
    from kafka import KafkaConsumer, TopicPartition
    from confluent_kafka import Consumer, TopicPartition as CkTopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, api_version_auto_timeout_ms=10000)
    tp = TopicPartition(topic, 0)
    found = c.offsets_for_times({tp: int(at_ms)})[tp]
    kp = {'beginning': c.beginning_offsets([tp])[tp], 'end': c.end_offsets([tp])[tp],
          'by_time': [found.offset, found.timestamp] if found else None}
    c.close()
    ck = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'admin-apis-offsets',
                   'enable.auto.commit': False})
    low, high = ck.get_watermark_offsets(CkTopicPartition(topic, 0), timeout=30)
    times = ck.offsets_for_times([CkTopicPartition(topic, 0, int(at_ms))], timeout=30)
    ck.close()
    return {'kafka_python': kp,
            'confluent_kafka': {'low': low, 'high': high, 'by_time': times[0].offset}}


# ---- OffsetForLeaderEpoch (key 23, v0-4, flexible from 4)

def leader_epoch_request(version, topic, asks):
    """asks: [(partition, current_leader_epoch, leader_epoch)]"""
    e = Enc(version >= 4)

    def partition(p):
        return (struct.pack('>i', p[0])
                + (struct.pack('>i', p[1]) if version >= 2 else b'')
                + struct.pack('>i', p[2]) + e.tags())
    return ((struct.pack('>i', -1) if version >= 3 else b'')
            + e.array([topic], lambda t: e.string(t) + e.array(asks, partition) + e.tags())
            + e.tags())


def leader_epoch_response(d, version):
    if version >= 2:
        d.i32()

    def partition():
        p = {'error': d.i16(), 'partition': d.i32()}
        if version >= 1:
            p['leader_epoch'] = d.i32()
        p['end_offset'] = d.i64()
        d.tags()
        return p

    def topic():
        t = {'topic': d.string(), 'partitions': d.array(partition)}
        d.tags()
        return t
    topics = d.array(topic)
    d.tags()
    d.done()
    return topics


def offset_for_leader_epoch(bootstrap, topic):
    """Every version asks partition 0 of topic for the end of epochs 0, 1
    and -1, with a current leader epoch of 1 (v2+), and partition 9"""
    out = {}
    sock = connect(bootstrap)
    for v in range(0, 5):
        asks = [(0, -1, 0), (0, -1, 1), (0, -1, -1)]
        if v >= 2:
            asks += [(0, 0, 0), (0, 1, 0)]
        asks.append((9, -1, 0))
        d = call(sock, 23, v, 4, leader_epoch_request(v, topic, asks), corr=v + 1)
        out[str(v)] = leader_epoch_response(d, v)[0]['partitions']
    sock.close()
    return out


def topic_errors(bootstrap, topic):
    """ListOffsets v9 and OffsetForLeaderEpoch v4 of partition 0 of topic:
    their error codes"""
    sock = connect(bootstrap)
    lo = list_offsets_response(call(sock, 2, 9, 6, list_offsets_request(9, topic, [(0, -1, 1)])), 9)
    le = leader_epoch_response(call(sock, 23, 4, 4, leader_epoch_request(4, topic, [(0, -1, 0)])), 4)
    return {'list_offsets': lo[0]['partitions'][0]['error'],
            'offset_for_leader_epoch': le[0]['partitions'][0]['error']}


# ---- DeleteRecords (key 21, v0-2, flexible from 2)

def delete_records_request(version, topic, asks):
    """asks: [(partition, offset)]"""
    e = Enc(version >= 2)
    return (e.array([topic], lambda t: e.string(t) + e.array(
        asks, lambda p: struct.pack('>iq', p[0], p[1]) + e.tags()) + e.tags())
        + struct.pack('>i', 30000) + e.tags())


def delete_records_response(d):
    d.i32()

    def partition():
        p = [d.i32(), d.i64(), d.i16()]
        d.tags()
        return p

    def topic():
        t = [d.string(), d.array(partition)]
        d.tags()
        return t
    topics = d.array(topic)
    d.tags()
    d.done()
    return topics


def delete_records(bootstrap, version, topic, *asks):
    """DeleteRecords at version of topic's PARTITION:OFFSET asks: each
    partition's [partition, low watermark, error]"""
    v = int(version)
    asks = [tuple(int(x) for x in a.split(':')) for a in asks]
    sock = connect(bootstrap)
    d = call(sock, 21, v, 2, delete_records_request(v, topic, asks))
    return delete_records_response(d)[0][1]


# ---- CreatePartitions (key 37, v0-3, flexible from 2)

def create_partitions_request(version, topics, validate_only):
    """topics: [(name, count, assignments or None)]"""
    e = Enc(version >= 2)
    return (e.array(topics, lambda t: e.string(t[0]) + struct.pack('>i', t[1])
                    + e.array(t[2], lambda a: e.array(a, lambda b: struct.pack('>i', b))
                              + e.tags()) + e.tags())
            + struct.pack('>ib', 30000, 1 if validate_only else 0) + e.tags())


def create_partitions(bootstrap, version, validate_only, *topics):
    """CreatePartitions at version of NAME:COUNT[:BROKER] topics (BROKER:
    one assignment of that broker per new partition, counted from the
    topic's current count given as NAME:COUNT:BROKER:CURRENT): each topic's
    [name, error, message]"""
    v = int(version)
    asks = []
    for t in topics:
        parts = t.split(':')
        assignments = None
        if len(parts) == 4:
            assignments = [[int(parts[2])] for _ in range(int(parts[1]) - int(parts[3]))]
        asks.append((parts[0], int(parts[1]), assignments))
    sock = connect(bootstrap)
    d = call(sock, 37, v, 2, create_partitions_request(v, asks, validate_only == 'true'))
    d.i32()

    def result():
        r = [d.string(), d.i16(), d.string()]
        d.tags()
        return r
    results = d.array(result)
    d.tags()
    d.done()
    return results


def clients_create_partitions(bootstrap, kp_topic, kp_count, ck_topic, ck_count):
    """kafka-python's KafkaAdminClient and confluent-kafka's AdminClient
    grow a topic each; then each asks to shrink one: the errors"""
    from kafka.admin import KafkaAdminClient, NewPartitions
    from kafka.errors import KafkaError
    from confluent_kafka.admin import AdminClient, NewPartitions as CkNewPartitions
    out = {}
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    r = admin.create_partitions({kp_topic: NewPartitions(int(kp_count))})
    out['kafka_python'] = [[t[0], t[1]] for t in r.topic_errors]
    try:
        admin.create_partitions({kp_topic: NewPartitions(1)})
        out['kafka_python_shrink'] = 'accepted'
    except KafkaError as e:
        out['kafka_python_shrink'] = type(e).__name__
    admin.close()
    ck = AdminClient({'bootstrap.servers': bootstrap})
    f = ck.create_partitions([CkNewPartitions(ck_topic, int(ck_count))])[ck_topic]
    try:
        f.result(30)
        out['confluent_kafka'] = 'ok'
    except Exception as e:
        out['confluent_kafka'] = str(e)
    f = ck.create_partitions([CkNewPartitions(ck_topic, 1)])[ck_topic]
    try:
        f.result(30)
        out['confluent_kafka_shrink'] = 'accepted'
    except Exception as e:
        out['confluent_kafka_shrink'] = e.args[0].name()
    return out


# ---- DescribeCluster (key 60, v0-1, flexible) and DescribeLogDirs (key
# 35, v0-4, flexible from 2)

def describe_cluster(bootstrap, version, include, endpoint_type='1'):
    v = int(version)
    body = (struct.pack('>b', 1 if include == 'true' else 0)
            + (struct.pack('>b', int(endpoint_type)) if v >= 1 else b'') + b'\x00')
    sock = connect(bootstrap)
    d = call(sock, 60, v, 0, body)
    out = {'throttle': d.i32(), 'error': d.i16(), 'message': d.string()}
    if v >= 1:
        out['endpoint_type'] = d.i8()
    out['cluster_id'] = d.string()
    out['controller'] = d.i32()

    def broker():
        b = [d.i32(), d.string(), d.i32(), d.string()]
        d.tags()
        return b
    out['brokers'] = d.array(broker)
    out['operations'] = d.i32()
    d.tags()
    d.done()
    return out


def describe_log_dirs(bootstrap, version, *topics):
    """DescribeLogDirs at version of every topic (no TOPICS) or of
    NAME:P,P... ones: the directory's name, v4's byte counts, and
    {topic: {partition: [size, lag, future]}}"""
    v = int(version)
    e = Enc(v >= 2)
    asks = None
    if topics:
        asks = [(t.split(':')[0], [int(p) for p in t.split(':')[1].split(',')]) for t in topics]
    body = e.array(asks, lambda t: e.string(t[0]) + e.array(
        t[1], lambda p: struct.pack('>i', p)) + e.tags()) + e.tags()
    sock = connect(bootstrap)
    d = call(sock, 35, v, 2, body)
    d.i32()
    out = {}
    if v >= 3:
        out['error'] = d.i16()

    def partition():
        p = (d.i32(), [d.i64(), d.i64(), d.i8()])
        d.tags()
        return p

    def topic():
        t = (d.string(), dict((str(k), x) for k, x in d.array(partition)))
        d.tags()
        return t

    def result():
        r = {'error': d.i16(), 'log_dir': d.string(), 'topics': dict(d.array(topic))}
        if v >= 4:
            r['total_bytes'] = d.i64()
            r['usable_bytes'] = d.i64()
        d.tags()
        return r
    out['results'] = d.array(result)
    d.tags()
    d.done()
    return out


# ---- DescribeAcls (key 29, v0-3, flexible from 2)

def describe_acls(bootstrap, version, resource_type, name, pattern, principal,
                  operation, permission='1'):
    """DescribeAcls at version with a filter ('-': null): the resources,
    each [type, name, pattern (v1+), sorted [[principal, host, operation,
    permission]]], sorted; or the error"""
    v = int(version)
    e = Enc(v >= 2)
    none = lambda x: None if x == '-' else x
    body = (struct.pack('>b', int(resource_type)) + e.string(none(name))
            + (struct.pack('>b', int(pattern)) if v >= 1 else b'')
            + e.string(none(principal)) + e.string(None)
            + struct.pack('>bb', int(operation), int(permission)) + e.tags())
    sock = connect(bootstrap)
    d = call(sock, 29, v, 2, body)
    d.i32()
    error, message = d.i16(), d.string()

    def acl():
        a = [d.string(), d.string(), d.i8(), d.i8()]
        d.tags()
        return a

    def resource():
        r = [d.i8(), d.string()]
        if v >= 1:
            r.append(d.i8())
        r.append(sorted(d.array(acl)))
        d.tags()
        return r
    resources = d.array(resource)
    d.tags()
    d.done()
    if error:
        return {'error': error, 'message': message}
    return sorted(resources)


def clients_describe_acls(bootstrap, topic):
    """kafka-python's KafkaAdminClient.describe_acls of topic: sorted
    [principal, operation name] and the error's name"""
    from kafka.admin import (KafkaAdminClient, ACLFilter, ACLOperation, ACLPermissionType,
                             ResourcePatternFilter, ResourceType, ACLResourcePatternType)
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    acls, error = admin.describe_acls(ACLFilter(
        principal=None, host='*', operation=ACLOperation.ANY,
        permission_type=ACLPermissionType.ANY,
        resource_pattern=ResourcePatternFilter(ResourceType.TOPIC, topic,
                                               ACLResourcePatternType.LITERAL)))
    admin.close()
    return {'acls': sorted([a.principal, a.operation.name] for a in acls),
            'error': error.__name__}


# ---- SaslHandshake (key 17, v0-1) and SaslAuthenticate (key 36, v0-2,
# flexible from 2)

def sasl_plain(bootstrap, version, user, password):
    """SaslHandshake v1 for PLAIN, then SaslAuthenticate at version with
    user's password, then (if it succeeded) DescribeCluster on the same
    connection: what each answered"""
    v = int(version)
    sock = connect(bootstrap)
    d = call(sock, 17, 1, None, Enc(False).string('PLAIN'))
    out = {'handshake': [d.i16(), d.array(d.string)]}
    d.done()
    token = b'\0' + user.encode() + b'\0' + password.encode()
    body = (uvarint(len(token) + 1) + token + b'\x00' if v >= 2
            else struct.pack('>i', len(token)) + token)
    d = call(sock, 36, v, 2, body, corr=2)
    error, message = d.i16(), d.string()
    n = d.uvarint() - 1 if v >= 2 else d.i32()
    d.pos += max(n, 0)
    lifetime = d.i64() if v >= 1 else None
    d.tags()
    d.done()
    out['authenticate'] = [error, message, n, lifetime]
    if error == 0:
        d = call(sock, 60, 0, 0, b'\x00\x00', corr=3)
        d.i32()
        out['describe_cluster'] = d.i16()
    return out


def sasl_unexpected(bootstrap, version):
    """SaslAuthenticate at version without a handshake: its answer, and
    whether the connection then closes"""
    v = int(version)
    sock = connect(bootstrap)
    body = b'\x01\x00' if v >= 2 else struct.pack('>i', 0)
    d = call(sock, 36, v, 2, body)
    out = {'error': d.i16(), 'message': d.string()}
    try:
        call(sock, 18, 0, None, b'', corr=2)
        out['after'] = 'answered'
    except (EOFError, ConnectionResetError):
        out['after'] = 'closed'
    return out


# ---- InitProducerId (key 22, v0-5, flexible from 2)

def init_producer_id(bootstrap, transactional):
    """Every version, with a transactional id or none: [error, producer
    id >= 0, epoch] by version"""
    out = {}
    sock = connect(bootstrap)
    for v in range(0, 6):
        e = Enc(v >= 2)
        body = (e.string(transactional if transactional != '-' else None)
                + struct.pack('>i', 60000)
                + (struct.pack('>qh', -1, -1) if v >= 3 else b'') + e.tags())
        d = call(sock, 22, v, 2, body, corr=v + 1)
        d.i32()
        r = [d.i16(), int(d.i64() >= 0), d.i16()]
        d.tags()
        d.done()
        out[str(v)] = r
    return out


COMMANDS = {
    'init_producer_id': init_producer_id,
    'sasl_plain': sasl_plain,
    'sasl_unexpected': sasl_unexpected,
    'describe_acls': describe_acls,
    'clients_describe_acls': clients_describe_acls,
    'describe_cluster': describe_cluster,
    'describe_log_dirs': describe_log_dirs,
    'delete_records': delete_records,
    'create_partitions': create_partitions,
    'clients_create_partitions': clients_create_partitions,
    'offset_for_leader_epoch': offset_for_leader_epoch,
    'topic_errors': topic_errors,
    'list_offsets': list_offsets,
    'list_offsets_unknown': lambda b, v: list_offsets_unknown(b, int(v)),
    'list_offsets_v10': list_offsets_v10,
    'clients_offsets': clients_offsets,
}


if __name__ == '__main__':
    print(json.dumps(COMMANDS[sys.argv[2]](sys.argv[1], *sys.argv[3:])))
