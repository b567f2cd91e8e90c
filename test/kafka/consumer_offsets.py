"""Kafka's __consumer_offsets topic, for test/t/051_kafka_consumer_offsets.pl.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2, confluent-kafka
1.7.0):

    consumer_offsets.py BOOTSTRAP ROLE COMMAND [ARGS...]

Connections authenticate with SCRAM-SHA-256 as ROLE, password "<role>pw".
Each command prints one JSON document; a failure is an exception.

The records are decoded here with Kafka's schemas of offset commit
records (GroupMetadataManager): key version 0/1 = group, topic, partition;
value version 0 = offset, metadata, timestamp; 1 = offset, metadata,
commit_timestamp, expire_timestamp; 3 = offset, leader_epoch, metadata,
commit_timestamp.  Key version 2 (group metadata) is counted, not decoded.
"""
import json
import struct
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient

TOPIC = '__consumer_offsets'


def auth(role):
    return dict(bootstrap_servers=BOOTSTRAP, security_protocol='SASL_PLAINTEXT',
                sasl_mechanism='SCRAM-SHA-256', sasl_plain_username=role,
                sasl_plain_password=role + 'pw', api_version_auto_timeout_ms=30000)


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.at)
        self.at += struct.calcsize(fmt)
        return v[0]

    def string(self):
        n = self.take('>h')
        if n < 0:
            return None
        s = self.data[self.at:self.at + n].decode()
        self.at += n
        return s


def decode(key, value):
    """(kind, fields) of one record of __consumer_offsets"""
    k = Reader(key)
    version = k.take('>h')
    if version == 2:
        return 'group_metadata', None
    if version not in (0, 1):
        raise ValueError('key version %d' % version)
    fields = {'group': k.string(), 'topic': k.string(), 'partition': k.take('>i')}
    assert k.at == len(key), 'the key has bytes past its fields'
    if value is None:
        fields['offset'] = None
        return 'offset', fields
    v = Reader(value)
    vversion = v.take('>h')
    fields['value_version'] = vversion
    fields['offset'] = v.take('>q')
    if vversion == 3:
        fields['leader_epoch'] = v.take('>i')
    fields['metadata'] = v.string()
    fields['commit_timestamp'] = v.take('>q')
    if vversion == 1:
        fields['expire_timestamp'] = v.take('>q')
    assert v.at == len(value), 'the value has bytes past its fields'
    return 'offset', fields


def read(role):
    """Every record of __consumer_offsets from the beginning to its end,
    decoded: the latest committed offset per group/topic/partition (null if
    cleared), the offsets seen (strictly increasing), and the topics listed
    to the role"""
    c = KafkaConsumer(enable_auto_commit=False, request_timeout_ms=30000,
                      **auth(role))
    listed = ck_listed(role)
    # kafka-python finds partitions in the list of all topics, where only
    # pg_monitor members see this one; any role may name partition 0
    parts = c.partitions_for_topic(TOPIC)
    tps = [TopicPartition(TOPIC, p) for p in sorted(parts or [0])]
    # what Metadata marked is_internal
    cluster = c._client.cluster
    internal = sorted(set(cluster.topics(exclude_internal_topics=False)) -
                      set(cluster.topics(exclude_internal_topics=True)))
    c.assign(tps)
    c.seek_to_beginning(*tps)
    end = c.end_offsets(tps)
    latest = {}
    offsets = []
    versions = set()
    metadata = {}
    deadline = time.time() + 60
    while time.time() < deadline and any(c.position(tp) < end[tp] for tp in tps):
        for batch in c.poll(timeout_ms=1000).values():
            for r in batch:
                offsets.append(r.offset)
                kind, f = decode(r.key, r.value)
                if kind != 'offset':
                    continue
                name = '%s/%s/%d' % (f['group'], f['topic'], f['partition'])
                latest[name] = f['offset']
                if f['offset'] is not None:
                    versions.add(f['value_version'])
                    metadata[name] = f['metadata']
    c.close()
    return {
        'listed': listed,
        'internal': internal,
        'partitions': sorted(parts) if parts else None,
        'end': {str(tp.partition): o for tp, o in end.items()},
        'latest': {k: v for k, v in latest.items() if v is not None},
        'cleared': sorted(k for k, v in latest.items() if v is None),
        'metadata': metadata,
        'increasing': all(a < b for a, b in zip(offsets, offsets[1:])),
        'value_versions': sorted(versions),
    }


def ck_config(role):
    return {'bootstrap.servers': BOOTSTRAP, 'group.id': 'unused',
            'security.protocol': 'SASL_PLAINTEXT', 'sasl.mechanism': 'SCRAM-SHA-256',
            'sasl.username': role, 'sasl.password': role + 'pw',
            'enable.partition.eof': True, 'enable.auto.commit': False}


def ck_listed(role):
    """the topics Metadata lists to role (kafka-python's topics() leaves
    internal topics out whatever it is told; librdkafka does not)"""
    from confluent_kafka import Consumer
    c = Consumer(ck_config(role))
    topics = sorted(c.list_topics(timeout=30).topics)
    c.close()
    return topics


def ck_read(role):
    """confluent-kafka (librdkafka) reads partition 0 to its end: the
    number of offset commit records and their keys' groups"""
    from confluent_kafka import Consumer, TopicPartition as TP, OFFSET_BEGINNING
    c = Consumer(ck_config(role))
    c.assign([TP(TOPIC, 0, OFFSET_BEGINNING)])
    groups = set()
    n = 0
    deadline = time.time() + 60
    while time.time() < deadline:
        m = c.poll(1.0)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                break
            raise Exception(str(m.error()))
        kind, f = decode(m.key(), m.value())
        if kind == 'offset':
            n += 1
            groups.add(f['group'])
    c.close()
    return {'records': n, 'groups': sorted(groups)}


def kafka_commit(role, topic, group, offset, metadata):
    """OffsetCommit of offset for every partition of topic in group, with
    metadata written with Python's escapes ('\\x00' is a NUL)"""
    from kafka.structs import OffsetAndMetadata
    metadata = metadata.encode().decode('unicode_escape')
    c = KafkaConsumer(group_id=group, enable_auto_commit=False, **auth(role))
    parts = sorted(c.partitions_for_topic(topic))
    c.commit({TopicPartition(topic, p): OffsetAndMetadata(int(offset), metadata)
              for p in parts})
    c.close()
    return len(parts)


def produce(role):
    """Produce to __consumer_offsets: the error's class"""
    p = KafkaProducer(retries=0, **auth(role))
    try:
        p.send(TOPIC, key=b'k', value=b'v').get(timeout=30)
        out = None
    except Exception as e:
        out = type(e).__name__
    p.close()
    return out


def delete(role):
    """DeleteTopics of __consumer_offsets: the error's class"""
    a = KafkaAdminClient(**auth(role))
    try:
        a.delete_topics([TOPIC])
        out = None
    except Exception as e:
        out = type(e).__name__
    a.close()
    return out


def main():
    global BOOTSTRAP
    BOOTSTRAP = sys.argv[1]
    print(json.dumps(globals()[sys.argv[3]](sys.argv[2], *sys.argv[4:])))


if __name__ == '__main__':
    main()
