"""Idempotent producers through restarts, crashes and failovers, and Kafka
batches that must get dense offsets (test/t/042).

Run with Debian's /usr/bin/python3:

    producer_state.py BOOTSTRAP COMMAND [ARGS...]

Connections authenticate with SASL PLAIN as the role and password given.
Each command prints one JSON document on stdout; a failure is an exception.
"""
import json
import os
import sys
import threading
import time

from clients import _batch
from producer_roles import Conn


def begin(bootstrap, topic, user, password):
    """A new producer writes two batches to partition 0 of topic: seq 0-2
    and seq 3-4.  Its id, epoch and the [error, base offset] of each."""
    c = Conn(bootstrap, user, password)
    err, pid, epoch = c.init_producer_id()
    first = c.produce(topic, [(0, _batch(pid, epoch, 0, 3, b'state', b'one'))])[0]
    second = c.produce(topic, [(0, _batch(pid, epoch, 3, 2, b'state', b'two'))])[0]
    return {'init': err, 'pid': pid, 'epoch': epoch, 'first': first,
            'second': second}


def resume(bootstrap, topic, user, password, pid, epoch):
    """The producer of begin, on a new connection (after the server
    restarted, crashed or failed over): both its batches sent again, then
    the next one (seq 5), a batch with a gap (seq 9) and, by another
    connection's role if given as user, nothing else"""
    c = Conn(bootstrap, user, password)
    pid, epoch = int(pid), int(epoch)
    res = {}
    res['second_again'] = c.produce(topic, [(0, _batch(pid, epoch, 3, 2, b'state', b'two'))])[0]
    res['first_again'] = c.produce(topic, [(0, _batch(pid, epoch, 0, 3, b'state', b'one'))])[0]
    res['next'] = c.produce(topic, [(0, _batch(pid, epoch, 5, 1, b'state', b'three'))])[0]
    res['next_again'] = c.produce(topic, [(0, _batch(pid, epoch, 5, 1, b'state', b'three'))])[0]
    res['gap'] = c.produce(topic, [(0, _batch(pid, epoch, 9, 1, b'state', b'gap'))])[0]
    return res


def steal(bootstrap, topic, user, password, pid, epoch):
    """Another role's batch with the producer id of begin, at its next
    sequence number, after the server restarted: [error, base offset]"""
    c = Conn(bootstrap, user, password)
    return c.produce(topic, [(0, _batch(int(pid), int(epoch), 6, 1, b'state', b'thief'))])[0]


def big_batches(bootstrap, topic, user, password, prefix, count, size, rounds):
    """rounds Kafka batches of count records of size bytes to partition 0,
    not idempotent, each in its own request: [error, base offset, tag] of
    each (the records' values start with the tag, PREFIX-R, R from 0)"""
    c = Conn(bootstrap, user, password)
    out = []
    for r in range(int(rounds)):
        tag = b'%s-%d' % (prefix.encode(), r)
        value = tag.ljust(int(size), b'.')
        err, base = c.produce(topic, [(0, _batch(-1, -1, 0, int(count), b'big', value))])[0]
        out.append([err, base, tag.decode()])
    return out


def ck_idempotent_run(bootstrap, topic, stop_file, report_file):
    """confluent-kafka's idempotent producer (acks=all) producing records
    with unique keys, each to its partition, until stop_file exists, with
    several requests in flight; then it flushes.  Every delivery report
    goes to report_file as it comes (one JSON line each), so that the test
    sees progress; the answer is the reports, the errors the client raised
    and whether it failed for good."""
    from confluent_kafka import Producer, KafkaException
    fatal = []
    errors = []

    def on_error(err):
        errors.append(err.name())
        if err.fatal():
            fatal.append(err.str())
    p = Producer({'bootstrap.servers': bootstrap, 'enable.idempotence': True,
                  'acks': 'all', 'linger.ms': 5, 'batch.num.messages': 50,
                  'max.in.flight.requests.per.connection': 5,
                  'message.timeout.ms': 300000, 'retry.backoff.ms': 100,
                  'reconnect.backoff.max.ms': 500,
                  'topic.metadata.refresh.interval.ms': 1000,
                  'error_cb': on_error})
    reports = []
    lock = threading.Lock()
    out = open(report_file, 'a')

    def report(err, msg):
        r = [err.name() if err else None, msg.partition(), msg.offset(),
             msg.key().decode()]
        with lock:
            reports.append(r)
            out.write(json.dumps(r) + '\n')
            out.flush()
    i = 0
    while not os.path.exists(stop_file) and not fatal:
        try:
            p.produce(topic, key=b'k%07d' % i, value=b'v%d' % i, on_delivery=report)
            i += 1
        except BufferError:
            p.poll(0.1)
            continue
        if i % 20 == 0:
            p.poll(0.005)
    p.flush(120)
    out.close()
    return {'sent': i, 'reports': reports, 'errors': sorted(set(errors)),
            'fatal': fatal}


COMMANDS = {f.__name__: f for f in (begin, resume, steal, big_batches,
                                    ck_idempotent_run)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
