"""Kafka clients through fences and failovers, driven by the TAP tests
test/t/040_kafka_fence.pl, 044_kafka_brokers.pl and 045_kafka_failover.pl.

Run with Debian's /usr/bin/python3, where kafka-python 2.0.2 and
confluent-kafka 1.7.0 (librdkafka 2.0.2) are installed:

    failover.py BOOTSTRAP COMMAND [ARGS...]

BOOTSTRAP is a comma-separated list of host:port.  The one-shot commands
print one JSON document; `run` is a client that runs until a stop file
appears, writing what happens to it as JSON lines (see run()).
"""
import io
import json
import os
import socket
import struct
import sys
import time

from clients import _read_response

# kafka-python gives a broker 2 s to answer its first ApiVersions probe by
# default, too little for a busy test machine
PROBE = dict(api_version_auto_timeout_ms=30000)


def _socket(bootstrap):
    host, port = bootstrap.split(',')[0].rsplit(':', 1)
    return socket.create_connection((host, int(port)), timeout=30)


def _read_frame(sock):
    """One response frame's body, after its correlation id"""
    return _read_response(sock)[1]


def _call(sock, request, corr=1):
    """Send a request built with kafka-python's protocol classes and decode
    its answer"""
    header = struct.pack('>hhih', request.API_KEY, request.API_VERSION, corr,
                         4) + b'test'
    payload = header + request.encode()
    sock.sendall(struct.pack('>i', len(payload)) + payload)
    return request.RESPONSE_TYPE.decode(io.BytesIO(_read_frame(sock)))


def _raw(sock, key, version, body, corr=1):
    payload = struct.pack('>hhih', key, version, corr, 4) + b'test' + body
    sock.sendall(struct.pack('>i', len(payload)) + payload)
    return _read_frame(sock)


def _produce_body(topic, partition, pid, epoch, seq, key):
    """Produce v3 (acks=all) of one record to one partition"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(2, 0, False, pid, epoch, seq, 1 << 20)
    b.append(0, timestamp=None, key=key.encode(), value=b'v', headers=[])
    records = bytes(b.build())
    name = topic.encode()
    return (struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1)
            + struct.pack('>h', len(name)) + name + struct.pack('>i', 1)
            + struct.pack('>i', partition) + struct.pack('>i', len(records))
            + records)


def fenced_answers(bootstrap, topic, group, new_topic, victim):
    """What a node answers each kind of request (error codes): Metadata,
    FindCoordinator and OffsetCommit (of group), JoinGroup (of a new group
    named new_topic, so that it need not wait for other members), CreateTopics
    (of new_topic), DeleteTopics (of victim), InitProducerId and Produce"""
    from kafka.protocol.admin import CreateTopicsRequest, DeleteTopicsRequest
    from kafka.protocol.commit import (GroupCoordinatorRequest,
                                       OffsetCommitRequest)
    from kafka.protocol.group import JoinGroupRequest
    from kafka.protocol.metadata import MetadataRequest
    sock = _socket(bootstrap)
    out = {}
    md = _call(sock, MetadataRequest[1]([topic]))
    out['brokers'] = sorted([b[0], b[1], b[2]] for b in md.brokers)
    out['controller'] = md.controller_id
    out['partitions'] = sorted([p[1], p[0], p[2]] for p in md.topics[0][3])
    fc = _call(sock, GroupCoordinatorRequest[0](group))
    out['find_coordinator'] = [fc.error_code, fc.coordinator_id]
    jg = _call(sock, JoinGroupRequest[0](new_topic, 10000, '', 'consumer',
                                         [('range', b'\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00')]))
    out['join_group'] = jg.error_code
    oc = _call(sock, OffsetCommitRequest[2](group, -1, '', -1,
                                            [(topic, [(0, 1, 'fenced')])]))
    out['offset_commit'] = oc.topics[0][1][0][1]
    ct = _call(sock, CreateTopicsRequest[0]([(new_topic, 1, 1, [], [])], 30000))
    out['create_topics'] = ct.topic_errors[0][1]
    dt = _call(sock, DeleteTopicsRequest[0]([victim], 30000))
    out['delete_topics'] = dt.topic_error_codes[0][1]
    body = _raw(sock, 22, 0, struct.pack('>hi', -1, 60000))
    out['init_producer_id'] = struct.unpack('>ihqh', body[:16])[1]
    body = _raw(sock, 0, 3, _produce_body(topic, 0, -1, -1, -1, 'raw-fenced'))
    off = 4 + 2 + len(topic.encode()) + 4
    out['produce'] = struct.unpack('>ih', body[off:off + 6])[1]
    sock.close()
    return out


def _sql(dsn, statement):
    import psycopg2
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute(statement)
    row = cur.fetchone() if cur.description else None
    conn.close()
    return row[0] if row else None


def _fence(dsn, on):
    """Fence the node as pg_auto_failover does (ALTER SYSTEM and a reload),
    or lift the fence"""
    _sql(dsn, 'ALTER SYSTEM SET default_transaction_read_only = %s' %
         ('on' if on else 'off'))
    _sql(dsn, 'SELECT pg_reload_conf()')


def _wait_fenced(bootstrap, topic):
    """Wait until every listener process of the node answers Metadata with no
    leader (each reloads its settings on its own)"""
    from kafka.protocol.metadata import MetadataRequest
    deadline = time.time() + 30
    fenced = 0
    while fenced < 10 and time.time() < deadline:
        sock = _socket(bootstrap)
        md = _call(sock, MetadataRequest[1]([topic]))
        sock.close()
        fenced = fenced + 1 if all(p[2] == -1 for p in md.topics[0][3]) else 0
    if fenced < 10:
        raise Exception('the node does not say it is fenced')


def ck_through_fence(bootstrap, topic, dsn, count, warm):
    """An idempotent acks=all confluent-kafka producer sends count records to
    a fenced node: while the fence lasts (4 s) nothing may be stored or
    acknowledged, and nothing may be fatal; then the fence is lifted, and
    every record must be delivered.  warm=1: the producer has its producer
    id and has delivered a record before the fence (as across a failover);
    0: it starts on the fenced node.  Its delivery reports, with the time
    from the lifting of the fence to the last one."""
    from confluent_kafka import Producer
    errors = []
    reports = []
    p = Producer({'bootstrap.servers': bootstrap, 'enable.idempotence': True,
                  'acks': 'all', 'linger.ms': 5,
                  'message.timeout.ms': 120000,
                  'error_cb': lambda e: errors.append([e.name(), e.fatal()])})

    def report(err, msg):
        reports.append([err.name() if err else None, msg.partition(),
                        msg.offset(), msg.key().decode(), time.time()])
    if warm == '1':
        p.produce(topic, key=b'ck-warm', value=b'v', partition=0,
                  on_delivery=report)
        p.flush(60)
    _fence(dsn, True)
    _wait_fenced(bootstrap, topic)
    before = _sql(dsn, 'SELECT count(*) FROM %s' % topic)
    for i in range(int(count)):
        p.produce(topic, key=b'ck-%d' % i, value=b'v', partition=i % 2,
                  on_delivery=report)
    deadline = time.time() + 4
    while time.time() < deadline:
        p.poll(0.2)
    fenced = {'stored': _sql(dsn, 'SELECT count(*) FROM %s' % topic) - before,
              'reports': len([r for r in reports if r[3] != 'ck-warm']),
              'errors': list(errors)}
    lifted = time.time()
    _fence(dsn, False)
    left = p.flush(120)
    return {'fenced': fenced, 'unflushed': left, 'errors': errors,
            'resumed_after': round(max([r[4] for r in reports] or [lifted]) - lifted, 2),
            'reports': sorted([r[:4] for r in reports], key=lambda r: r[3])}


def kp_through_fence(bootstrap, topic, dsn, count):
    """The same with a kafka-python producer (acks=all, retrying) that has
    delivered a record before the fence"""
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=bootstrap.split(','), acks='all',
                      retries=100, retry_backoff_ms=200, max_block_ms=120000,
                      **PROBE)
    warm = p.send(topic, key=b'kp-warm', value=b'v', partition=0).get(timeout=60)
    _fence(dsn, True)
    _wait_fenced(bootstrap, topic)
    before = _sql(dsn, 'SELECT count(*) FROM %s' % topic)
    futures = [(i, p.send(topic, key=b'kp-%d' % i, value=b'v', partition=i % 2))
               for i in range(int(count))]
    time.sleep(4)
    fenced = {'stored': _sql(dsn, 'SELECT count(*) FROM %s' % topic) - before,
              'done': sum(1 for _, f in futures if f.is_done)}
    lifted = time.time()
    _fence(dsn, False)
    p.flush(120)
    resumed = time.time() - lifted
    reports = [[None, warm.partition, warm.offset, 'kp-warm']]
    for i, f in futures:
        try:
            m = f.get(timeout=1)
            reports.append([None, m.partition, m.offset, 'kp-%d' % i])
        except Exception as e:
            reports.append([type(e).__name__, None, None, 'kp-%d' % i])
    p.close()
    return {'fenced': fenced, 'resumed_after': round(resumed, 2),
            'reports': reports}


class Events:
    """A client's events, one JSON object a line, each with its time"""

    def __init__(self, path):
        self.f = open(path, 'a', buffering=1)

    def __call__(self, ev, **kw):
        kw['ev'] = ev
        kw['t'] = round(time.time(), 3)
        self.f.write(json.dumps(kw) + '\n')


def _ck_producer(bootstrap, name, topic, events, stopped, idempotent):
    from confluent_kafka import Producer
    p = Producer({'bootstrap.servers': bootstrap,
                  'enable.idempotence': idempotent,
                  'acks': 'all', 'linger.ms': 5,
                  'partitioner': 'murmur2_random',
                  'message.timeout.ms': 300000,
                  'error_cb': lambda e: events('error', err=e.name(),
                                               fatal=e.fatal(), msg=e.str())})

    def report(err, msg):
        if err:
            events('nack', key=msg.key().decode(), err=err.name())
        else:
            events('ack', key=msg.key().decode(), p=msg.partition(),
                   o=msg.offset())
    from confluent_kafka import KafkaException
    i = 0
    next_send = time.time()
    try:
        while not stopped():
            if time.time() >= next_send:
                i += 1
                p.produce(topic, key=b'%s-%d' % (name.encode(), i),
                          value=b'v', on_delivery=report)
                events('sent', key='%s-%d' % (name, i))
                next_send += 0.05
            p.poll(max(0, min(0.05, next_send - time.time())))
        events('flushing', left=len(p))
        events('flushed', left=p.flush(120))
    except KafkaException as e:
        # a fatal error: the producer can do nothing more
        events('error', err=e.args[0].name(), fatal=e.args[0].fatal(),
               msg=e.args[0].str())


def _ck_consumer(bootstrap, name, topic, group, events, stopped):
    from confluent_kafka import Consumer
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                  'auto.offset.reset': 'earliest',
                  'enable.auto.commit': True, 'auto.commit.interval.ms': 1000,
                  'error_cb': lambda e: events('error', err=e.name(),
                                               fatal=e.fatal(), msg=e.str())})
    c.subscribe([topic],
                on_assign=lambda c, ps: events('assign', parts=[p.partition for p in ps]),
                on_revoke=lambda c, ps: events('revoke', parts=[p.partition for p in ps]))
    while not stopped():
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            events('error', err=m.error().name(), fatal=m.error().fatal(),
                   msg=m.error().str())
            continue
        events('rec', key=m.key().decode(), p=m.partition(), o=m.offset())
    c.close()


def _kp_producer(bootstrap, name, topic, events, stopped):
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=bootstrap.split(','), acks='all',
                      retries=1000000, retry_backoff_ms=200,
                      max_block_ms=300000, **PROBE)
    i = 0
    while not stopped():
        i += 1
        key = '%s-%d' % (name, i)
        f = p.send(topic, key=key.encode(), value=b'v')
        f.add_callback(lambda m, key=key: events('ack', key=key, p=m.partition,
                                                 o=m.offset))
        f.add_errback(lambda e, key=key: events('nack', key=key,
                                                err=type(e).__name__))
        events('sent', key=key)
        time.sleep(0.05)
    p.flush(120)
    events('flushed', left=0)
    p.close()


def _kp_consumer(bootstrap, name, topic, group, events, stopped):
    from kafka import KafkaConsumer
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap.split(','),
                      group_id=group, auto_offset_reset='earliest',
                      enable_auto_commit=True, auto_commit_interval_ms=1000,
                      **PROBE)
    while not stopped():
        for tp, batch in c.poll(timeout_ms=500).items():
            for m in batch:
                events('rec', key=m.key.decode(), p=m.partition, o=m.offset)
    c.close()


def run(bootstrap, client, name, topic, group, outdir):
    """A client (ck_producer, an idempotent one, ck_idempotent_producer,
    ck_consumer, kp_producer, kp_consumer) that runs until OUTDIR/stop
    exists.  Producers send a record every 50 ms
    (keys NAME-1, NAME-2, ...); consumers are members of GROUP.  Events go
    to OUTDIR/NAME.events: sent, ack (key, partition p, offset o), nack,
    rec (a record consumed), assign, revoke, error (with fatal), and a
    producer's flushed at the end (records left unsent)."""
    events = Events(os.path.join(outdir, name + '.events'))
    stop = os.path.join(outdir, 'stop')

    def stopped():
        return os.path.exists(stop)
    events('start', client=client)
    if client in ('ck_producer', 'ck_idempotent_producer'):
        _ck_producer(bootstrap, name, topic, events, stopped,
                     client == 'ck_idempotent_producer')
    elif client == 'kp_producer':
        _kp_producer(bootstrap, name, topic, events, stopped)
    elif client == 'ck_consumer':
        _ck_consumer(bootstrap, name, topic, group, events, stopped)
    elif client == 'kp_consumer':
        _kp_consumer(bootstrap, name, topic, group, events, stopped)
    else:
        raise Exception('no client ' + client)
    events('end')
    return {}


COMMANDS = {f.__name__: f for f in (fenced_answers, ck_through_fence,
                                    kp_through_fence, run)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
