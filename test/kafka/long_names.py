"""Kafka topic names longer than a table name, for
test/t/048_kafka_long_names.pl.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2, confluent-kafka
1.7.0):

    long_names.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document; a failure is an exception.
"""
import json
import sys
import time

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic
from kafka.errors import TopicAlreadyExistsError, UnknownTopicOrPartitionError

PROBE = dict(api_version_auto_timeout_ms=30000)


def error_name(e):
    return type(e).__name__


def create(bootstrap, *names):
    """CreateTopics of each name (2 partitions): the error of each, or
    null"""
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, **PROBE)
    out = {}
    for name in names:
        try:
            admin.create_topics([NewTopic(name, 2, 1)])
            out[name] = None
        except Exception as e:  # the class names the Kafka error
            out[name] = error_name(e)
    admin.close()
    return out


def delete(bootstrap, name):
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, **PROBE)
    try:
        admin.delete_topics([name])
        out = None
    except Exception as e:
        out = error_name(e)
    admin.close()
    return out


def listed(bootstrap):
    """the topics Metadata lists (every topic)"""
    c = KafkaConsumer(bootstrap_servers=bootstrap, **PROBE)
    topics = sorted(c.topics())
    c.close()
    return topics


def roundtrip(bootstrap, name, group, count):
    """kafka-python: produce count records to name, read them in group,
    commit, and read back the committed offsets and the end offsets"""
    count = int(count)
    p = KafkaProducer(bootstrap_servers=bootstrap, acks='all', **PROBE)
    sent = [p.send(name, key=b'k%d' % i, value=b'v%d' % i).get(timeout=30)
            for i in range(count)]
    p.close()
    c = KafkaConsumer(name, bootstrap_servers=bootstrap, group_id=group,
                      auto_offset_reset='earliest', enable_auto_commit=False,
                      **PROBE)
    got = []
    deadline = time.time() + 60
    while len(got) < count and time.time() < deadline:
        for batch in c.poll(timeout_ms=1000).values():
            got.extend(batch)
    c.commit()
    tps = [TopicPartition(name, p) for p in sorted(c.partitions_for_topic(name))]
    committed = {tp.partition: c.committed(tp) for tp in tps}
    ends = {tp.partition: o for tp, o in c.end_offsets(tps).items()}
    c.close()
    return {
        'sent': len(sent),
        'read': sorted(r.value.decode() for r in got),
        'topics_of_records': sorted(set(r.topic for r in got)),
        'committed': committed,
        'ends': ends,
    }


def ck_roundtrip(bootstrap, name, group, count):
    """confluent-kafka (librdkafka): the same, subscribing by name"""
    from confluent_kafka import Consumer, Producer
    count = int(count)
    p = Producer({'bootstrap.servers': bootstrap})
    errors = []
    for i in range(count):
        p.produce(name, key=b'ck%d' % i, value=b'ck%d' % i,
                  on_delivery=lambda err, msg: errors.append(str(err)) if err else None)
    p.flush(60)
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                  'auto.offset.reset': 'earliest', 'enable.auto.commit': False})
    c.subscribe([name])
    got = []
    deadline = time.time() + 60
    while len(got) < count and time.time() < deadline:
        m = c.poll(1.0)
        if m is not None and m.error() is None:
            got.append(m)
    c.commit(asynchronous=False)
    c.close()
    return {'errors': errors, 'read': len(got),
            'topics_of_records': sorted(set(m.topic() for m in got))}


def main():
    bootstrap, command = sys.argv[1], sys.argv[2]
    print(json.dumps(globals()[command](bootstrap, *sys.argv[3:])))


if __name__ == '__main__':
    main()
