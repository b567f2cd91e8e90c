"""Kafka clients driven by the TAP tests (test/t/031_kafka.pl and others).

Run with Debian's /usr/bin/python3, where kafka-python 2.0.2 and
confluent-kafka 1.7.0 are installed:

    clients.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document on stdout for the test to compare
with what SQL sees; a failure is an exception (non-zero exit).
"""
import json
import sys
import time

# kafka-python gives a broker 2 s to answer its first ApiVersions probe by
# default, too little for a busy test machine
PROBE = dict(api_version_auto_timeout_ms=30000)


def poll_until(c, done, timeout=60):
    """kafka-python: the records of c.poll() until done(records), or the
    deadline.  (Iterating a consumer with consumer_timeout_ms instead would
    stop early when a join or the first fetch is slow.)"""
    records = []
    deadline = time.time() + timeout
    while time.time() < deadline and not done(records):
        for batch in c.poll(timeout_ms=1000).values():
            records.extend(batch)
    return records


def at_end(c):
    """done() for poll_until: c is assigned partitions and has read each
    to its end"""
    def done(records):
        tps = list(c.assignment())
        if not tps:
            return False
        end = c.end_offsets(tps)
        return all(c.position(tp) >= end[tp] for tp in tps)
    return done


def kp_produce(bootstrap, topic, count, acks='all'):
    """kafka-python KafkaProducer: send keyed records, report metadata"""
    from kafka import KafkaProducer
    p = KafkaProducer(bootstrap_servers=bootstrap,
                      acks=acks if acks == 'all' else int(acks), **PROBE)
    futures = [p.send(topic, key=b'kp-%d' % i, value=b'kp-value-%d' % i,
                      headers=[('n', str(i).encode())])
               for i in range(int(count))]
    p.flush()
    out = []
    for f in futures:
        m = f.get(timeout=30)
        out.append([m.partition, m.offset, m.timestamp])
    p.close()
    return out


def kp_read(bootstrap, topic):
    """kafka-python KafkaConsumer without a group: offsets and every record"""
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                      check_crcs=True, **PROBE)
    parts = sorted(c.partitions_for_topic(topic))
    tps = [TopicPartition(topic, p) for p in parts]
    c.assign(tps)
    begin = c.beginning_offsets(tps)
    end = c.end_offsets(tps)
    c.seek_to_beginning()
    records = []
    for m in poll_until(c, at_end(c)):
        records.append([m.partition, m.offset, m.timestamp,
                        m.key.decode('latin-1') if m.key is not None else None,
                        m.value.decode('latin-1') if m.value is not None else None,
                        [[k, v.decode('latin-1') if v is not None else None]
                         for k, v in m.headers]])
    # offsets by time: the first record's time, and a time after the newest
    first = {}
    for r in records:
        first.setdefault(r[0], r)
    times = {}
    for tp in tps:
        if tp.partition in first:
            ts = first[tp.partition][2]
            found = c.offsets_for_times({tp: ts})[tp]
            later = c.offsets_for_times({tp: int(time.time() * 1000) + 3600000})[tp]
            times[tp.partition] = [ts, found.offset if found else None,
                                   later.offset if later else None]
    # seek: to the middle of the first partition that has records, and read on
    sought = None
    for tp in tps:
        if end[tp] - begin[tp] >= 2:
            target = begin[tp] + (end[tp] - begin[tp]) // 2
            c.assign([tp])
            c.seek(tp, target)
            got = [m.offset for m in poll_until(c, lambda records: records,
                                                 timeout=30)]
            sought = [tp.partition, target, got[0] if got else None]
            break
    c.close()
    records.sort()
    return {'begin': {str(tp.partition): o for tp, o in begin.items()},
            'end': {str(tp.partition): o for tp, o in end.items()},
            'records': records, 'times': times, 'seek': sought}


def ck_produce(bootstrap, topic, count):
    """confluent-kafka Producer with delivery reports"""
    from confluent_kafka import Producer
    p = Producer({'bootstrap.servers': bootstrap,
                  'partitioner': 'murmur2_random'})
    reports = []

    def report(err, msg):
        reports.append([err.name() if err else None, msg.partition(),
                        msg.offset(), msg.timestamp()[1],
                        msg.key().decode()])
    for i in range(int(count)):
        p.produce(topic, key=b'ck-%d' % i, value=b'"ck-value-%d"' % i,
                  on_delivery=report)
    p.flush(30)
    return sorted(reports, key=lambda r: r[4])


def ck_produce_mixed(bootstrap, topic):
    """confluent-kafka: a record that is not JSON to partition 0, good ones to 1.
    The two records of partition 0 must travel in one batch: a linger longer
    than any pause of a busy machine keeps them together, and flush() sends
    at once whatever the linger (with 50 ms, a slow CI run sent them apart).
    The topic's metadata is fetched first: records produced before the
    producer knows the topic wait unassigned, and if flush() is already
    under way when the metadata comes, librdkafka moves them to their
    partition one at a time and sends the first alone (seen once in CI)"""
    from confluent_kafka import Producer
    p = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 10000,
                  'retries': 0})
    known = p.list_topics(topic, timeout=30).topics.get(topic)
    if known is None or known.error is not None or len(known.partitions) < 2:
        raise RuntimeError('no metadata for topic %s: %r' % (topic, known))
    reports = []

    def report(err, msg):
        reports.append([msg.partition(), err.code() if err else None,
                        msg.value().decode() if msg.value() else ''])
    p.produce(topic, value=b'{"ok": 1}', partition=0, on_delivery=report)
    p.produce(topic, value=b'not json', partition=0, on_delivery=report)
    p.produce(topic, value=b'{"ok": 2}', partition=1, on_delivery=report)
    p.produce(topic, value=None, key=b'tombstone', partition=1,
              on_delivery=report)
    p.flush(30)
    return sorted(reports, key=lambda r: (r[0], r[2]))


def ck_latency(bootstrap, topic, partition, dsn, rounds):
    """A confluent consumer waiting at the end; SQL produces; time to see it"""
    from confluent_kafka import Consumer, TopicPartition
    import psycopg2
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'unused',
                  'enable.auto.commit': False, 'fetch.wait.max.ms': 10000})
    conn = psycopg2.connect(dsn)
    conn.autocommit = True
    cur = conn.cursor()
    cur.execute("SELECT high_watermark FROM topics.offsets(%s) WHERE partition = %s",
                (topic, int(partition)))
    hw = cur.fetchone()[0]
    c.assign([TopicPartition(topic, int(partition), hw)])
    while c.poll(0.5) is not None:
        pass
    latencies = []
    for _ in range(int(rounds)):
        time.sleep(0.2)
        t0 = time.time()
        cur.execute("SELECT topics.produce(%s, 'wake'::text, partition => %s)",
                    (topic, int(partition)))
        while True:
            m = c.poll(30)
            if m is None:
                raise Exception('no record within 30 s')
            if not m.error():
                break
        latencies.append(round((time.time() - t0) * 1000, 2))
    c.close()
    return latencies


def kp_group(bootstrap, topic, group, partition, offset, metadata):
    """kafka-python group consumer: read a little, commit a position with
    metadata, close; a new consumer of the group resumes there"""
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata
    tp = TopicPartition(topic, int(partition))

    def consumer():
        return KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                             auto_offset_reset='earliest',
                             enable_auto_commit=False, **PROBE)
    c = consumer()
    poll_until(c, lambda records: len(records) >= 3)
    assigned = sorted(t.partition for t in c.assignment())
    c.commit({tp: OffsetAndMetadata(int(offset), metadata)})
    committed = c._coordinator.fetch_committed_offsets([tp])[tp]
    c.close()
    c = consumer()
    mine = [m.offset for m in poll_until(
        c, lambda records: any(m.partition == int(partition) for m in records))
        if m.partition == int(partition)]
    resumed = mine[0] if mine else None
    c.close()
    return {'assigned': assigned, 'committed': [committed.offset, committed.metadata],
            'resumed': resumed}


def ck_committed(bootstrap, topic, group, nparts):
    """confluent Consumer.committed() of every partition"""
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                  'enable.auto.commit': False})
    tps = c.committed([TopicPartition(topic, p) for p in range(int(nparts))],
                      timeout=30)
    c.close()
    return [tp.offset for tp in tps]


def kp_committed(bootstrap, topic, group, partition):
    """kafka-python: a group's committed offset of a partition and its
    metadata (OffsetFetch), without joining the group"""
    from kafka import KafkaConsumer, TopicPartition
    c = KafkaConsumer(bootstrap_servers=bootstrap, group_id=group,
                      enable_auto_commit=False, **PROBE)
    committed = c.committed(TopicPartition(topic, int(partition)),
                            metadata=True)
    c.close()
    return [committed.offset, committed.metadata] if committed else None


def ck_rebalance(bootstrap, topic, group, total):
    """Two confluent consumers of one group, committing synchronously in
    their rebalance callbacks: c1 alone, c2 joins halfway and leaves at
    two thirds.  Every record is consumed; duplicates only from the
    revoke windows."""
    from confluent_kafka import Consumer, KafkaException
    total = int(total)
    seen = []
    events = []

    def make(name):
        c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                      'enable.auto.commit': False,
                      'auto.offset.reset': 'earliest',
                      'session.timeout.ms': 6000,
                      'heartbeat.interval.ms': 500})

        def on_assign(consumer, partitions):
            events.append([name, 'assign', sorted(p.partition for p in partitions)])

        def on_revoke(consumer, partitions):
            events.append([name, 'revoke', sorted(p.partition for p in partitions)])
            try:
                consumer.commit(asynchronous=False)
            except KafkaException:
                pass
        c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
        return c

    def step(c):
        m = c.poll(0.2)
        if m is not None and not m.error():
            seen.append((m.partition(), m.offset()))
            try:
                c.commit(message=m, asynchronous=False)
            except KafkaException:
                pass    # a rebalance: the record comes again, at worst
    c1 = make('c1')
    c2 = None
    deadline = time.time() + 90
    while len(set(seen)) < total and time.time() < deadline:
        step(c1)
        if c2 is None and len(set(seen)) >= total // 2 and not any(e[0] == 'c2' for e in events):
            c2 = make('c2')
        if c2 is not None:
            step(c2)
            if len(set(seen)) >= 2 * total // 3 and any(e[0] == 'c2' and e[1] == 'assign' and e[2] for e in events):
                c2.close()
                c2 = None
    c1.close()
    if c2 is not None:
        c2.close()
    return {'distinct': len(set(seen)), 'read': len(seen), 'events': events}


def ck_first_assignment(bootstrap, topic, group):
    """A confluent consumer alone in a new group: seconds from subscribe to
    its first assignment with partitions (null if none within 40 s)"""
    from confluent_kafka import Consumer
    assigned = []
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                  'session.timeout.ms': 6000})
    start = time.time()

    def on_assign(consumer, partitions):
        if partitions and not assigned:
            assigned.append(time.time() - start)
    c.subscribe([topic], on_assign=on_assign)
    while not assigned and time.time() - start < 40:
        c.poll(0.1)
    c.close()
    return assigned[0] if assigned else None


def ck_list_groups(bootstrap):
    """confluent AdminClient.list_groups(): ListGroups and DescribeGroups"""
    from confluent_kafka.admin import AdminClient
    a = AdminClient({'bootstrap.servers': bootstrap})
    return sorted([g.id, g.state, g.protocol, len(g.members)]
                  for g in a.list_groups(timeout=30))


def kp_sasl(bootstrap, mechanism, user, password, topic):
    """kafka-python with SASL (its unframed tokens after SaslHandshake v0):
    produce one record and read the topic back, or the error"""
    from kafka import KafkaProducer, KafkaConsumer
    conf = dict(bootstrap_servers=bootstrap, security_protocol='SASL_PLAINTEXT',
                sasl_mechanism=mechanism, sasl_plain_username=user,
                sasl_plain_password=password, **PROBE)
    try:
        p = KafkaProducer(acks='all', **conf)
        m = p.send(topic, b'from kafka-python').get(timeout=30)
        p.close()
        c = KafkaConsumer(topic, auto_offset_reset='earliest', **conf)
        n = len(poll_until(c, at_end(c)))
        c.close()
        return {'partition': m.partition, 'offset': m.offset, 'read': n}
    except Exception as e:
        return {'error': type(e).__name__}


def ck_admin(bootstrap):
    """confluent AdminClient: create, create again, validate only, list,
    a config it does not take, delete"""
    from confluent_kafka.admin import AdminClient, NewTopic
    a = AdminClient({'bootstrap.servers': bootstrap})

    def outcome(futures):
        out = {}
        for name, f in futures.items():
            try:
                f.result(timeout=30)
                out[name] = None
            except Exception as e:
                out[name] = e.args[0].name() if e.args and hasattr(e.args[0], 'name') else str(e)
        return out
    res = {}
    res['create'] = outcome(a.create_topics([NewTopic('t2', 4),
                                             NewTopic('t_ret', 2, config={'retention.ms': '3600000', 'retention.bytes': '1048576'})]))
    res['again'] = outcome(a.create_topics([NewTopic('t2', 4)]))
    res['validate'] = outcome(a.create_topics([NewTopic('t3', 2)], validate_only=True))
    res['bad'] = outcome(a.create_topics([NewTopic('t4', 2, replication_factor=3),
                                          NewTopic('t5', 2, config={'cleanup.policy': 'remove'}),
                                          NewTopic('bad name!', 1)]))
    res['listed'] = {name: len(t.partitions)
                     for name, t in a.list_topics(timeout=30).topics.items()}
    res['delete'] = outcome(a.delete_topics(['t2', 'nope']))
    res['after'] = sorted(a.list_topics(timeout=30).topics)
    return res


def _raw_request(sock, key, version, corr, body):
    """Send one request on a raw socket and read its response body"""
    import struct
    payload = struct.pack('>hhih', key, version, corr, 3) + b'raw' + body
    sock.sendall(struct.pack('>i', len(payload)) + payload)
    return _read_response(sock)[1]


def _init_producer_id(sock):
    """InitProducerId v0 (no transactional id): (error, producer id, epoch)"""
    import struct
    body = _raw_request(sock, 22, 0, 1, struct.pack('>hi', -1, 60000))
    throttle, err, pid, epoch = struct.unpack('>ihqh', body[:16])
    return err, pid, epoch


def _batch(pid, epoch, seq, count, key, value):
    """A RecordBatch v2 of count records of key, with values value-SEQ
    (pid -1: not idempotent)"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    b = DefaultRecordBatchBuilder(2, 0, False, pid, epoch if pid >= 0 else -1,
                                  seq if pid >= 0 else -1, 1 << 20)
    for i in range(count):
        b.append(i, timestamp=None, key=key, value=b'%s-%d' % (value, seq + i), headers=[])
    return bytes(b.build())


def _first_partition(topic, body):
    """The first partition's entry of a Produce v3 or ListOffsets v1 answer
    of one topic: (partition, error, then two int64s: base offset and
    log-append time, or timestamp and offset)"""
    import struct
    off = 4 + 2 + len(topic.encode()) + 4
    return struct.unpack('>ihqq', body[off:off + 22])


def idempotent_retry(bootstrap, topic):
    """An idempotent producer's batch sent twice, by hand: the second try is
    answered with the first's offset; a gap in the sequence is refused"""
    import socket
    host, port = bootstrap.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=30)
    err, pid, epoch = _init_producer_id(sock)

    def produce(seq, count, corr):
        sock.sendall(_produce_frame(topic, corr, _batch(pid, epoch, seq, count, b'idem', b'seq')))
        part, perr, base, ts = _first_partition(topic, _read_response(sock)[1])
        return [perr, base]
    first = produce(0, 3, 2)
    again = produce(0, 3, 3)
    gap = produce(5, 1, 4)
    following = produce(3, 3, 5)
    return {'error': err, 'producer_id': pid, 'first': first, 'again': again,
            'gap': gap, 'following': following}


def _produce_frame(topic, corr, records, acks=-1, version=3):
    """A Produce frame (v3 to v8: one layout) with its size, of one
    partition-0 batch"""
    import struct
    name = topic.encode()
    body = (struct.pack('>hhi', -1, acks, 30000) + struct.pack('>i', 1)
            + struct.pack('>h', len(name)) + name + struct.pack('>i', 1)
            + struct.pack('>i', 0) + struct.pack('>i', len(records)) + records)
    payload = struct.pack('>hhih', 0, version, corr, 3) + b'raw' + body
    return struct.pack('>i', len(payload)) + payload


def _read_response(sock):
    """One response frame: (correlation id, body)"""
    import struct

    def read(n):
        data = b''
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise EOFError('connection closed')
            data += chunk
        return data
    n = struct.unpack('>i', read(4))[0]
    data = read(n)
    return struct.unpack('>i', data[:4])[0], data[4:]


def raw_produce(bootstrap, topic, key):
    """One record by a bare Produce v3 (acks=all): [error, base offset,
    seconds to the answer], or [null, null, seconds] if the connection
    closed instead"""
    import socket
    from kafka.record.default_records import DefaultRecordBatchBuilder
    host, port = bootstrap.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=60)
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    b.append(0, timestamp=None, key=key.encode(), value=b'v', headers=[])
    start = time.time()
    sock.sendall(_produce_frame(topic, 1, bytes(b.build())))
    try:
        corr, body = _read_response(sock)
    except (EOFError, ConnectionResetError):
        return [None, None, time.time() - start]
    part, perr, base, ts = _first_partition(topic, body)
    return [perr, base, time.time() - start]


def raw_produce_keyless(bootstrap, topic):
    """A Produce v8 batch of a keyed and a keyless record to partition 0:
    [error, base offset, error message] of the partition's answer"""
    import socket
    import struct
    from kafka.record.default_records import DefaultRecordBatchBuilder
    host, port = bootstrap.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=60)
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 20)
    b.append(0, timestamp=None, key=b'k', value=b'keyed', headers=[])
    b.append(1, timestamp=None, key=None, value=b'keyless', headers=[])
    sock.sendall(_produce_frame(topic, 1, bytes(b.build()), version=8))
    corr, body = _read_response(sock)
    # topics[1]: name, partitions[1]: index, error, base offset,
    # log-append time, log start, record_errors[], error_message
    off = 4 + 2 + len(topic.encode()) + 4
    part, perr, base, lat, lso, nrec = struct.unpack('>ihqqqi', body[off:off + 34])
    off += 34
    for _ in range(max(nrec, 0)):
        off += 4
        n = struct.unpack('>h', body[off:off + 2])[0]
        off += 2 + max(n, 0)
    n = struct.unpack('>h', body[off:off + 2])[0]
    message = body[off + 2:off + 2 + n].decode() if n >= 0 else None
    return [perr, base, message]


def idempotent_retry_held(bootstrap, topic):
    """An idempotent producer's batch, and 1.5 s later the same batch on a
    second connection (as after a reconnect), while the synchronous standby
    is away: [error, base offset, seconds to the answer] of the retry, and
    [error, base offset] of the first try"""
    import socket
    host, port = bootstrap.rsplit(':', 1)
    first = socket.create_connection((host, int(port)), timeout=120)
    err, pid, epoch = _init_producer_id(first)
    frame = _produce_frame(topic, 2, _batch(pid, epoch, 0, 2, b'held', b'held'))
    first.sendall(frame)
    time.sleep(1.5)
    retry = socket.create_connection((host, int(port)), timeout=120)
    start = time.time()
    retry.sendall(frame)
    # the test starts the standby only once the retry is on its way
    sys.stderr.write('retry sent\n')
    sys.stderr.flush()
    corr, body = _read_response(retry)
    waited = time.time() - start
    part, perr, base, ts = _first_partition(topic, body)
    corr, body = _read_response(first)
    part, ferr, fbase, ts = _first_partition(topic, body)
    return {'retry': [perr, base, waited], 'first': [ferr, fbase]}


def raw_list_offsets(bootstrap, topic):
    """A bare ListOffsets v1 for the end of partition 0: [error, offset,
    seconds to the answer]"""
    import socket
    import struct
    host, port = bootstrap.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=60)
    name = topic.encode()
    body = (struct.pack('>ii', -1, 1) + struct.pack('>h', len(name)) + name
            + struct.pack('>iiq', 1, 0, -1))
    start = time.time()
    answer = _raw_request(sock, 2, 1, 7, body)
    part, err, ts, offset = _first_partition(topic, answer)
    return [err, offset, time.time() - start]


def idempotent_after_listener_exit(bootstrap, topic):
    """An idempotent batch whose listener process exits while writing it
    (the test terminates it): the client's retry on a new connection, once
    the listener is back, is [error, base offset]"""
    import socket
    host, port = bootstrap.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=60)
    err, pid, epoch = _init_producer_id(sock)
    frame = _produce_frame(topic, 2, _batch(pid, epoch, 0, 2, b'exit', b'gone'))
    sock.sendall(frame)
    try:
        _read_response(sock)
        first = 'answered'
    except (EOFError, ConnectionResetError):
        first = 'closed'
    deadline = time.time() + 60
    while True:
        try:
            sock = socket.create_connection((host, int(port)), timeout=60)
            sock.sendall(frame)
            corr, body = _read_response(sock)
            part, perr, base, ts = _first_partition(topic, body)
            if perr != 7 or time.time() > deadline:
                return {'first': first, 'retry': [perr, base]}
        except (EOFError, ConnectionError):
            if time.time() > deadline:
                return {'first': first, 'retry': None}
        time.sleep(0.5)


def pipelined_produce(bootstrap, topic):
    """Produce requests sent back to back in one write, as a producer with
    several requests in flight sends them: an idempotent producer's five
    consecutive batches of one partition are all stored, answered in order;
    and a pipeline whose third request is malformed closes the connection
    with none of its requests stored"""
    import socket
    import struct
    host, port = bootstrap.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), timeout=30)
    err, pid, epoch = _init_producer_id(sock)

    def batch(seq, count, tag, idempotent=True):
        return _batch(pid if idempotent else -1, epoch, seq, count, tag, tag)
    name = topic.encode()
    frames = b''.join(_produce_frame(topic, 10 + i, batch(2 * i, 2, b'pipe'))
                      for i in range(5))
    sock.sendall(frames)
    answers = []
    for i in range(5):
        corr, body = _read_response(sock)
        part, perr, base, ts = _first_partition(topic, body)
        answers.append([corr, perr, base])
    # the third batch again, alone: answered from what was stored
    sock.sendall(_produce_frame(topic, 20, batch(4, 2, b'pipe')))
    corr, body = _read_response(sock)
    part, perr, base, ts = _first_partition(topic, body)
    again = [corr, perr, base]
    sock.close()

    # a pipeline with a malformed request in it: two good ones, then one
    # whose partition array says 1 but holds nothing
    sock = socket.create_connection((host, int(port)), timeout=30)
    good = [_produce_frame(topic, 30 + i, batch(0, 1, b'bad-pipe', False))
            for i in range(2)]
    bad_body = struct.pack('>hhi', -1, -1, 30000) + struct.pack('>i', 1) + \
        struct.pack('>h', len(name)) + name + struct.pack('>i', 1)
    bad_payload = struct.pack('>hhih', 0, 3, 32, 3) + b'raw' + bad_body
    sock.sendall(b''.join(good) + struct.pack('>i', len(bad_payload)) + bad_payload)
    closed = False
    got = []
    try:
        while True:
            got.append(_read_response(sock)[0])
    except (EOFError, ConnectionResetError):
        closed = True
    sock.close()
    return {'answers': answers, 'again': again, 'closed': closed,
            'answered_before_close': got}


class LosingProxy:
    """A TCP proxy in front of the broker that loses one Produce answer: it
    forwards the first Produce request that carries records, lets the
    broker store it, and then closes the client's connection instead of
    passing the answer on, as a network failure would.  Metadata answers
    are rewritten to advertise the proxy, so that the client keeps talking
    through it."""

    def __init__(self, bootstrap):
        import socket
        import threading
        self.upstream = bootstrap.rsplit(':', 1)
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.lost = 0
        self.lock = threading.Lock()
        threading.Thread(target=self.accept, daemon=True).start()

    @staticmethod
    def frames(sock):
        import struct
        buf = b''
        while True:
            while len(buf) >= 4 and len(buf) >= 4 + struct.unpack('>i', buf[:4])[0]:
                n = struct.unpack('>i', buf[:4])[0]
                yield buf[:4 + n]
                buf = buf[4 + n:]
            try:
                chunk = sock.recv(65536)
            except OSError:
                return
            if not chunk:
                return
            buf += chunk

    def accept(self):
        import socket
        import threading
        while True:
            client, _ = self.listener.accept()
            server = socket.create_connection((self.upstream[0], int(self.upstream[1])))
            asked = {}
            threading.Thread(target=self.requests, args=(client, server, asked),
                             daemon=True).start()
            threading.Thread(target=self.answers, args=(client, server, asked),
                             daemon=True).start()

    def requests(self, client, server, asked):
        import struct
        for frame in self.frames(client):
            key, version, corr = struct.unpack('>hhi', frame[4:12])
            asked[corr] = (key, version)
            try:
                server.sendall(frame)
            except OSError:
                return

    def answers(self, client, server, asked):
        import socket
        import struct
        for frame in self.frames(server):
            corr = struct.unpack('>i', frame[4:8])[0]
            key, version = asked.pop(corr, (None, None))
            if key == 0:
                with self.lock:
                    lose = self.lost == 0
                    self.lost += 1 if lose else 0
                if lose:
                    # shutdown, not just close: the other thread's recv
                    # holds the sockets open otherwise, and no FIN goes out
                    for sock in (client, server):
                        try:
                            sock.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                        sock.close()
                    return
            if key == 3:
                frame = self.rewrite_metadata(frame, version)
            try:
                client.sendall(frame)
            except OSError:
                return

    @staticmethod
    def uvarint(buf, pos):
        """an unsigned varint at pos: its value and the position after it"""
        value = shift = 0
        while True:
            b = buf[pos]
            pos += 1
            value |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return value, pos

    @staticmethod
    def put_uvarint(value):
        from raw_wire import uvarint
        return uvarint(value)

    def skip_tags(self, buf, pos):
        """a tagged-fields section at pos: the position after it"""
        n, pos = self.uvarint(buf, pos)
        for _ in range(n):
            _, pos = self.uvarint(buf, pos)
            size, pos = self.uvarint(buf, pos)
            pos += size
        return pos

    def rewrite_flexible_metadata(self, frame):
        """Metadata v9-12 (compact strings and arrays, tagged fields, and a
        response header with tagged fields): every broker at the proxy"""
        import struct
        body = frame[8:]
        pos = self.skip_tags(body, 0)         # the response header's
        pos += 4                              # throttle_time_ms
        out = body[:pos]
        n, pos = self.uvarint(body, pos)      # brokers, count + 1
        out += self.put_uvarint(n)
        host = b'127.0.0.1'
        for _ in range(max(n - 1, 0)):
            node = body[pos:pos + 4]
            hlen, pos = self.uvarint(body, pos + 4)
            pos += hlen - 1 + 4               # host, port
            rlen, rack_at = self.uvarint(body, pos)
            rack_end = rack_at + max(rlen - 1, 0)
            tags_end = self.skip_tags(body, rack_end)
            out += (node + self.put_uvarint(len(host) + 1) + host
                    + struct.pack('>i', self.port) + body[pos:tags_end])
            pos = tags_end
        out += body[pos:]
        return struct.pack('>i', len(out) + 4) + frame[4:8] + out

    def rewrite_metadata(self, frame, version):
        """Metadata: every broker at the proxy's address (v0-8 here, the
        flexible v9 on in rewrite_flexible_metadata)"""
        import struct
        if version >= 9:
            return self.rewrite_flexible_metadata(frame)
        body = frame[8:]
        pos = 4 if version >= 3 else 0
        out = body[:pos]
        n = struct.unpack('>i', body[pos:pos + 4])[0]
        pos += 4
        out += struct.pack('>i', n)
        for _ in range(n):
            node = body[pos:pos + 4]
            pos += 4
            hlen = struct.unpack('>h', body[pos:pos + 2])[0]
            pos += 2 + hlen + 4
            out += node + struct.pack('>h', 9) + b'127.0.0.1' + struct.pack('>i', self.port)
            if version >= 1:
                rlen = struct.unpack('>h', body[pos:pos + 2])[0]
                out += body[pos:pos + 2 + max(rlen, 0)]
                pos += 2 + max(rlen, 0)
        out += body[pos:]
        return struct.pack('>i', len(out) + 4) + frame[4:8] + out


def ck_idempotent_lost_answer(bootstrap, topic, count):
    """confluent-kafka's idempotent Producer through a proxy that loses the
    answer to its first Produce request after the broker stored it: the
    client sends the batch again, and every record must be stored once,
    with the offsets its delivery reports give"""
    from confluent_kafka import Producer
    proxy = LosingProxy(bootstrap)
    p = Producer({'bootstrap.servers': '127.0.0.1:%d' % proxy.port,
                  'enable.idempotence': True, 'linger.ms': 50,
                  'retry.backoff.ms': 100})
    reports = []

    def report(err, msg):
        reports.append([err.name() if err else None, msg.partition(),
                        msg.offset(), msg.key().decode()])
    for half in range(2):
        for i in range(int(count)):
            p.produce(topic, key=b'lost-%d-%d' % (half, i), value=b'v',
                      partition=0, on_delivery=report)
        p.flush(60)
    return {'lost': proxy.lost, 'reports': sorted(reports, key=lambda r: r[2])}


def kp_tls(bootstrap, cafile, topic, mechanism='', user='', password=''):
    """kafka-python over TLS (SSL, or SASL_SSL when a mechanism is given):
    produce one record and read the topic back"""
    from kafka import KafkaProducer, KafkaConsumer
    conf = dict(bootstrap_servers=bootstrap, ssl_cafile=cafile,
                ssl_check_hostname=False,
                security_protocol='SASL_SSL' if mechanism else 'SSL', **PROBE)
    if mechanism:
        conf.update(sasl_mechanism=mechanism, sasl_plain_username=user,
                    sasl_plain_password=password)
    p = KafkaProducer(acks='all', **conf)
    m = p.send(topic, b'over tls').get(timeout=30)
    p.close()
    c = KafkaConsumer(topic, auto_offset_reset='earliest', **conf)
    n = len(poll_until(c, at_end(c)))
    c.close()
    return {'offset': m.offset, 'read': n}


COMMANDS = {f.__name__: f for f in (kp_tls, idempotent_retry, pipelined_produce, raw_produce, raw_produce_keyless,
                                    idempotent_retry_held,
                                    raw_list_offsets, idempotent_after_listener_exit,
                                    ck_idempotent_lost_answer, ck_admin, kp_sasl, kp_produce, kp_read, ck_produce,
                                    ck_produce_mixed, ck_latency, kp_group,
                                    ck_committed, kp_committed, ck_rebalance, ck_list_groups, ck_first_assignment)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
