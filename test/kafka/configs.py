"""Topic configs over Kafka, for test/t/055_kafka_configs.pl: DescribeConfigs
(0-4), AlterConfigs (0-2), IncrementalAlterConfigs (0-1), CreateTopics (0-7)
and DeleteTopics (0-6), raw at every version and through kafka-python's and
confluent-kafka's admin clients.

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2, confluent-kafka
1.7.0):

    configs.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document: what the server answered.  Requests
are written byte by byte from Kafka's message definitions (admin_apis.py's
encoder: flexible versions with request header v2 and compact encodings).
"""
import json
import struct
import sys

from admin_apis import Enc, call
from raw_wire import connect


def value_of(s):
    """'-' is a null value on the command line"""
    return None if s == '-' else s


# ---- DescribeConfigs (key 32, v0-4, flexible from 4)

def describe(bootstrap, version, synonyms, *specs):
    """Resources 'topic:NAME[:KEY,KEY]' or 'broker:NAME[:KEY,...]' at version:
    [error, message, type, name, {key: [value, read_only, is_default or
    source, sensitive, synonyms, type, documentation]}] each"""
    v = int(version)
    e = Enc(v >= 4)
    resources = []
    for spec in specs:
        parts = spec.split(':')
        keys = parts[2].split(',') if len(parts) > 2 else None
        resources.append((2 if parts[0] == 'topic' else
                          4 if parts[0] == 'broker' else int(parts[0]),
                          parts[1], keys))
    body = e.array(resources, lambda r: struct.pack('>b', r[0]) + e.string(r[1])
                   + e.array(r[2], e.string) + e.tags())
    if v >= 1:
        body += struct.pack('>b', synonyms == 'true')
    if v >= 3:
        body += b'\x00'
    body += e.tags()
    d = call(connect(bootstrap), 32, v, 4, body)
    assert d.i32() == 0

    def config():
        name = d.string()
        c = [d.string(), int(d.i8() != 0)]
        if v == 0:
            c.append(int(d.i8() != 0))      # IsDefault
        else:
            c.append(d.i8())                # ConfigSource
        c.append(int(d.i8() != 0))          # IsSensitive
        if v >= 1:
            def synonym():
                s = [d.string(), d.string(), d.i8()]
                d.tags()
                return s
            c.append(d.array(synonym))
        if v >= 3:
            c.append(d.i8())
            c.append(d.string())
        d.tags()
        return name, c

    def result():
        r = [d.i16(), d.string(), d.i8(), d.string(), dict(d.array(config))]
        d.tags()
        return r
    out = d.array(result)
    d.tags()
    d.done()
    return out


# ---- AlterConfigs (key 33, v0-2, flexible from 2) and
# IncrementalAlterConfigs (key 44, v0-1, flexible from 1)

def alter(bootstrap, version, validate, *specs):
    """AlterConfigs: resources 'TYPE:NAME' each followed by its 'KEY=VALUE'
    ('-' a null value), separated by '/': [[error, message, type, name]]"""
    return _alter(bootstrap, 33, int(version), 2, validate, specs, False)


def incremental(bootstrap, version, validate, *specs):
    """IncrementalAlterConfigs: as alter, each config 'OP:KEY=VALUE' (OP
    0 SET, 1 DELETE, 2 APPEND, 3 SUBTRACT)"""
    return _alter(bootstrap, 44, int(version), 1, validate, specs, True)


def _alter(bootstrap, key, v, first_flexible, validate, specs, incremental):
    e = Enc(v >= first_flexible)
    resources = []
    for spec in ' '.join(specs).split('/'):
        words = spec.split()
        rtype, name = words[0].split(':', 1)
        configs = []
        for w in words[1:]:
            op = 0
            if incremental:
                op, w = w.split(':', 1)
            k, val = w.split('=', 1)
            configs.append((k, int(op), value_of(val)))
        resources.append((2 if rtype == 'topic' else 4 if rtype == 'broker'
                          else int(rtype), name, configs))

    def config(c):
        return (e.string(c[0]) + (struct.pack('>b', c[1]) if incremental else b'')
                + e.string(c[2]) + e.tags())
    body = (e.array(resources, lambda r: struct.pack('>b', r[0]) + e.string(r[1])
                    + e.array(r[2], config) + e.tags())
            + struct.pack('>b', validate == 'true') + e.tags())
    d = call(connect(bootstrap), key, v, first_flexible, body)
    assert d.i32() == 0

    def response():
        r = [d.i16(), d.string(), d.i8(), d.string()]
        d.tags()
        return r
    out = d.array(response)
    d.tags()
    d.done()
    return out


# ---- CreateTopics (key 19, v0-7, flexible from 5)

def create_topics(bootstrap, version, validate, *specs):
    """Topics 'NAME:PARTITIONS:FACTOR[:KEY=VALUE,...]' (a config value '-'
    is null; PARTITIONS 'a2' is two assignments to broker ASSIGN_TO, from
    the environment-free form 'aN@BROKER'): each topic's answer, as a dict"""
    v = int(version)
    e = Enc(v >= 5)
    topics = []
    for spec in specs:
        parts = spec.split(':', 3)
        configs = []
        if len(parts) > 3 and parts[3]:
            for c in parts[3].split(','):
                k, val = c.split('=', 1)
                configs.append((k, value_of(val)))
        assignments = []
        if parts[1].startswith('a'):
            count, broker = parts[1][1:].split('@')
            assignments = [(p, [int(broker)]) for p in range(int(count))]
            partitions = -1
        else:
            partitions = int(parts[1])
        topics.append((parts[0], partitions, int(parts[2]), assignments, configs))

    def topic(t):
        return (e.string(t[0]) + struct.pack('>ih', t[1], t[2])
                + e.array(t[3], lambda a: struct.pack('>i', a[0])
                          + e.array(a[1], lambda b: struct.pack('>i', b)) + e.tags())
                + e.array(t[4], lambda c: e.string(c[0]) + e.string(c[1]) + e.tags())
                + e.tags())
    body = e.array(topics, topic) + struct.pack('>i', 30000)
    if v >= 1:
        body += struct.pack('>b', validate == 'true')
    body += e.tags()
    d = call(connect(bootstrap), 19, v, 5, body)
    if v >= 2:
        assert d.i32() == 0

    def result():
        r = {'name': d.string()}
        if v >= 7:
            r['topic_id'] = d.data[d.pos:d.pos + 16].hex()
            d.pos += 16
        r['error'] = d.i16()
        if v >= 1:
            r['message'] = d.string()
        if v >= 5:
            r['partitions'] = d.i32()
            r['factor'] = d.i16()

            def config():
                c = [d.string(), d.string(), int(d.i8() != 0), d.i8(), int(d.i8() != 0)]
                d.tags()
                return c
            cs = d.array(config)
            r['configs'] = None if cs is None else {c[0]: c[1:] for c in cs}
            # tagged fields: TopicConfigErrorCode is tag 0
            for _ in range(d.uvarint()):
                tag = d.uvarint()
                size = d.uvarint()
                if tag == 0:
                    r['config_error'] = d.i16()
                else:
                    d.pos += size
        return r
    out = d.array(result)
    d.tags()
    d.done()
    return out


# ---- DeleteTopics (key 20, v0-6, flexible from 4)

def delete_topics(bootstrap, version, *names):
    """Topics by name, or 'id:HEX' (v6): [name, topic id (v6), error,
    message (v5+)] each"""
    v = int(version)
    e = Enc(v >= 4)
    if v >= 6:
        def state(n):
            if n.startswith('id:'):
                return e.string(None) + bytes.fromhex(n[3:]) + e.tags()
            return e.string(n) + bytes(16) + e.tags()
        body = e.array(list(names), state)
    else:
        body = e.array(list(names), e.string)
    body += struct.pack('>i', 30000) + e.tags()
    d = call(connect(bootstrap), 20, v, 4, body)
    if v >= 1:
        assert d.i32() == 0

    def result():
        r = [d.string()]
        if v >= 6:
            r.append(d.data[d.pos:d.pos + 16].hex())
            d.pos += 16
        r.append(d.i16())
        if v >= 5:
            r.append(d.string())
        d.tags()
        return r
    out = d.array(result)
    d.tags()
    d.done()
    return out


# ---- the admin clients

def clients_kafka_python(bootstrap, topic, new_topic):
    """kafka-python's KafkaAdminClient: create_topics with configs,
    describe_configs, alter_configs (AlterConfigs: the whole set), and the
    errors of a bad value and an unknown key"""
    from kafka.admin import (ConfigResource, ConfigResourceType,
                             KafkaAdminClient, NewTopic)
    from kafka.errors import InvalidConfigurationError
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, request_timeout_ms=30000)
    out = {}
    r = admin.create_topics([NewTopic(new_topic, 2, 1, topic_configs={
        'retention.ms': '3600000', 'segment.bytes': '1048576'})])
    out['create'] = [list(t) for t in r.topic_errors]
    try:
        admin.create_topics([NewTopic(new_topic + '_bad', 1, 1,
                                      topic_configs={'retention.mss': '1'})])
        out['create_unknown_key'] = 'accepted'
    except InvalidConfigurationError as ex:
        out['create_unknown_key'] = [type(ex).__name__, str(ex)]

    def described(name):
        resp = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, name)])
        result = resp[0].resources[0]
        return {'error': result[0],
                'configs': {c[0]: c[1] for c in result[4]}}
    out['describe'] = described(topic)
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={
        'retention.ms': '7200000', 'max.message.bytes': '2000'})])
    out['alter'] = [list(x[:2]) for x in r.resources]
    out['after_alter'] = described(topic)
    r = admin.alter_configs([ConfigResource(ConfigResourceType.TOPIC, topic, configs={
        'retention.ms': 'soon'})])
    out['alter_bad_value'] = [list(x[:2]) for x in r.resources]
    admin.close()
    return out


def clients_confluent_kafka(bootstrap, topic, new_topic, broker):
    """confluent-kafka's AdminClient: create_topics with configs (one of
    them compact), describe_configs of the topic and of the
    broker, alter_configs"""
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic
    admin = AdminClient({'bootstrap.servers': bootstrap})
    out = {}
    fs = admin.create_topics([
        NewTopic(new_topic, 3, 1, config={'retention.bytes': '1000000',
                                          'message.timestamp.type': 'CreateTime'}),
        NewTopic(new_topic + '_compact', 1, 1, config={'cleanup.policy': 'compact'})],
        request_timeout=30)
    for name, f in fs.items():
        try:
            f.result()
            out['create ' + name] = 'ok'
        except KafkaException as ex:
            out['create ' + name] = [ex.args[0].name(), ex.args[0].str()]

    def described(rtype, name):
        f = admin.describe_configs([ConfigResource(rtype, name)])
        try:
            entries = list(f.values())[0].result()
        except KafkaException as ex:
            return [ex.args[0].name(), ex.args[0].str()]
        return {k: [c.value, c.source, c.is_read_only] for k, c in entries.items()}
    out['describe'] = described('topic', topic)
    out['describe_broker'] = described('broker', broker)
    out['describe_unknown'] = described('topic', topic + '_not_there')
    fs = admin.alter_configs([ConfigResource('topic', topic, set_config={
        'segment.ms': '600000'})])
    try:
        list(fs.values())[0].result()
        out['alter'] = 'ok'
    except KafkaException as ex:
        out['alter'] = [ex.args[0].name(), ex.args[0].str()]
    fs = admin.alter_configs([ConfigResource('topic', topic, set_config={
        'cleanup.policy': 'compact'})], validate_only=True)
    try:
        list(fs.values())[0].result()
        out['alter_compact'] = 'ok'
    except KafkaException as ex:
        out['alter_compact'] = [ex.args[0].name(), ex.args[0].str()]
    return out


COMMANDS = {
    'describe': describe,
    'alter': alter,
    'incremental': incremental,
    'create_topics': create_topics,
    'delete_topics': delete_topics,
    'clients_kafka_python': clients_kafka_python,
    'clients_confluent_kafka': clients_confluent_kafka,
}


if __name__ == '__main__':
    print(json.dumps(COMMANDS[sys.argv[2]](sys.argv[1], *sys.argv[3:])))
