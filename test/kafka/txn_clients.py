"""confluent-kafka's transactional producer and read_committed consumers
against the listener (test/t/067 and 068).

Run with Debian's /usr/bin/python3 (confluent-kafka 1.7.0, librdkafka 2.0.2):

    txn_clients.py BOOTSTRAP COMMAND [ARGS...]

USER and PASSWORD, where a command takes them, are a role's SASL PLAIN
credentials ('-' for none: a listener under trust).

    driver USER PASSWORD TRANSACTIONAL_ID [CONF=VALUE...]
        A transactional producer that a test steps through by lines on
        stdin, so that it can look at the server between any two steps,
        run two producers of one id side by side, or kill one mid-way.  Each
        line is a step (below); each answer is one JSON line on stdout:
        {"ok": ...} or {"error": NAME, "fatal": bool, "abortable": bool,
        "retriable": bool, "message": text}.
    read TOPIC ISOLATION USER PASSWORD
        A consumer outside any group reading every partition of TOPIC from
        its start to its end at ISOLATION (read_committed or
        read_uncommitted): {"records": [[partition, offset, value]...],
        "ends": {partition: offset of the end it stopped at}}.
    committed TOPIC GROUP NPARTS USER PASSWORD
        GROUP's committed offset of each partition (OffsetFetch; -1001
        where none), as a read_committed consumer asks for it (requiring
        stable offsets); or the error librdkafka gave up with.
    loop USER PASSWORD TRANSACTIONAL_ID TOPIC NPARTS PER_PARTITION TAG REPORT
        Transactions one after the other until killed or failed: each
        writes PER_PARTITION records to every partition, values
        "TAG.N-i" (N counts transactions from 0), then commits; lines
        "TAG.N begun", "TAG.N committed" or "TAG.N failed ERROR" go to the
        file REPORT as they happen.

Steps of driver:
    init                      init_transactions()
    begin                     begin_transaction()
    produce TOPIC PARTITION PREFIX COUNT
                              COUNT records, value PREFIX-i, key kPREFIX-i;
                              answered once all are delivered (flushed):
                              [[partition, offset, error or null]...]
    send TOPIC PARTITION PREFIX COUNT
                              the same records, not waited for
    consume TOPIC GROUP COUNT this producer's consumer (group GROUP,
                              read_committed, no auto commit) polls until it
                              has COUNT records: [[partition, offset, value]]
    send_offsets              send_offsets_to_transaction() with the
                              consumer's positions: {partition: position}
    commit                    commit_transaction()
    abort                     abort_transaction()
    quit
"""
import json
import sys
import time


def _creds(conf, user, password):
    if user != '-':
        conf.update({'security.protocol': 'SASL_PLAINTEXT',
                     'sasl.mechanisms': 'PLAIN', 'sasl.username': user,
                     'sasl.password': password})
    return conf


def _error(e):
    """The answer for a KafkaException or KafkaError"""
    err = e.args[0] if e.args else e
    if hasattr(err, 'name'):
        return {'error': err.name(), 'fatal': err.fatal(),
                'abortable': err.txn_requires_abort(),
                'retriable': err.retriable(), 'message': err.str()}
    return {'error': type(e).__name__, 'fatal': False, 'abortable': False,
            'retriable': False, 'message': str(e)}


class Driver:
    def __init__(self, bootstrap, user, password, txn_id, conf):
        from confluent_kafka import Producer
        self.bootstrap, self.user, self.password = bootstrap, user, password
        self.errors = []
        c = _creds({'bootstrap.servers': bootstrap, 'transactional.id': txn_id,
                    'reconnect.backoff.max.ms': 500,
                    'error_cb': lambda err: self.errors.append(err.name())},
                   user, password)
        for kv in conf:
            k, v = kv.split('=', 1)
            c[k] = v
        self.p = Producer(c)
        self.consumer = None

    def _produce(self, topic, partition, prefix, count, wait):
        reports = []

        def report(err, msg):
            reports.append([msg.partition(), msg.offset(),
                            err.name() if err else None])
        for i in range(int(count)):
            self.p.produce(topic, key=b'k%s-%d' % (prefix.encode(), i),
                           value=b'%s-%d' % (prefix.encode(), i),
                           partition=int(partition), on_delivery=report)
        if not wait:
            self.p.poll(0)
            return None
        self.p.flush(60)
        return sorted(reports)

    def step(self, words):
        from confluent_kafka import Consumer, TopicPartition
        cmd, args = words[0], words[1:]
        if cmd == 'init':
            self.p.init_transactions(60)
        elif cmd == 'begin':
            self.p.begin_transaction()
        elif cmd == 'produce':
            return self._produce(*args, wait=True)
        elif cmd == 'send':
            return self._produce(*args, wait=False)
        elif cmd == 'consume':
            topic, group, count = args
            if self.consumer is None:
                self.consumer = Consumer(_creds({
                    'bootstrap.servers': self.bootstrap, 'group.id': group,
                    'isolation.level': 'read_committed',
                    'enable.auto.commit': False,
                    'auto.offset.reset': 'earliest'}, self.user, self.password))
                self.consumer.subscribe([topic])
            got = []
            deadline = time.time() + 60
            while len(got) < int(count) and time.time() < deadline:
                m = self.consumer.poll(0.5)
                if m is None or m.error():
                    continue
                got.append([m.partition(), m.offset(), m.value().decode()])
            return got
        elif cmd == 'send_offsets':
            positions = self.consumer.position(self.consumer.assignment())
            self.p.send_offsets_to_transaction(
                positions, self.consumer.consumer_group_metadata(), 60)
            return {str(tp.partition): tp.offset for tp in positions}
        elif cmd == 'commit':
            self.p.commit_transaction(60)
        elif cmd == 'abort':
            self.p.abort_transaction(60)
        else:
            raise ValueError('unknown step %s' % cmd)
        return True


def driver(bootstrap, user, password, txn_id, *conf):
    d = Driver(bootstrap, user, password, txn_id, conf)
    print(json.dumps({'ok': 'ready'}), flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == 'quit':
            break
        try:
            answer = {'ok': d.step(words)}
        except Exception as e:      # the test judges every error
            answer = _error(e)
        answer['client_errors'] = d.errors
        print(json.dumps(answer), flush=True)
    return None


def _consumer(bootstrap, isolation, user, password, group='unused'):
    from confluent_kafka import Consumer
    return Consumer(_creds({'bootstrap.servers': bootstrap, 'group.id': group,
                            'isolation.level': isolation,
                            'enable.auto.commit': False,
                            'enable.partition.eof': True}, user, password))


def read(bootstrap, topic, isolation, user, password):
    from confluent_kafka import TopicPartition, KafkaError
    c = _consumer(bootstrap, isolation, user, password)
    meta = c.list_topics(topic, timeout=30).topics[topic]
    if meta.error is not None:
        raise RuntimeError('topic %s: %s' % (topic, meta.error))
    parts = sorted(meta.partitions)
    c.assign([TopicPartition(topic, p, -2) for p in parts])
    records, ends = [], {}
    deadline = time.time() + 60
    while len(ends) < len(parts) and time.time() < deadline:
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                ends[str(m.partition())] = m.offset()
                continue
            raise RuntimeError(m.error().str())
        records.append([m.partition(), m.offset(), m.value().decode()])
    c.close()
    if len(ends) < len(parts):
        raise RuntimeError('no end of partitions %s within 60 s'
                           % [p for p in parts if str(p) not in ends])
    return {'records': sorted(records), 'ends': ends}


def committed(bootstrap, topic, group, nparts, user, password):
    from confluent_kafka import TopicPartition
    c = _consumer(bootstrap, 'read_committed', user, password, group)
    try:
        tps = c.committed([TopicPartition(topic, p)
                           for p in range(int(nparts))], timeout=10)
    except Exception as e:      # Kafka's UNSTABLE_OFFSET_COMMIT, retried
        return _error(e)        # by librdkafka until the timeout
    finally:
        c.close()
    return [tp.offset for tp in tps]


def loop(bootstrap, user, password, txn_id, topic, nparts, per_partition,
         tag, report):
    d = Driver(bootstrap, user, password, txn_id,
               ['transaction.timeout.ms=10000'])
    out = open(report, 'a')

    def say(line):
        out.write(line + '\n')
        out.flush()
    d.p.init_transactions(60)
    n = 0
    while True:
        name = '%s.%d' % (tag, n)
        say(name + ' begun')
        try:
            d.p.begin_transaction()
            for p in range(int(nparts)):
                d._produce(topic, p, name, per_partition, wait=False)
            d.p.commit_transaction(60)
            say(name + ' committed')
        except Exception as e:
            say('%s failed %s' % (name, _error(e)['error']))
            return None
        n += 1


COMMANDS = {f.__name__: f for f in (driver, read, committed, loop)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    result = COMMANDS[command](bootstrap, *args)
    if command != 'driver':
        print(json.dumps(result))
