"""Kafka transactions (test/t/066): transactional producers by raw frames
and by confluent-kafka.

Run with Debian's /usr/bin/python3:

    transactions.py BOOTSTRAP COMMAND [ARGS...]

Raw connections authenticate with SASL PLAIN as the role and password
given.  Each command prints one JSON document on stdout; a failure is an
exception.
"""
import json
import struct
import sys
import time

from kafka.record.default_records import DefaultRecordBatchBuilder

from producer_roles import Conn
from clients import _raw_request
import raw_wire


def s16(s):
    b = s.encode() if isinstance(s, str) else s
    return struct.pack('>h', len(b)) + b


def retry_concurrent(request, error_of=lambda r: r, pause=0.1):
    """request() retried while its answer's error is CONCURRENT_TRANSACTIONS
    (51), as clients do, at most 100 times: (the errors seen, the last
    answer)"""
    seen = []
    for _ in range(100):
        r = request()
        seen.append(error_of(r))
        if seen[-1] != 51:
            break
        time.sleep(pause)
    return seen, r


class Txn:
    """A transactional producer's requests, by raw frames (the non-flexible
    versions given)"""

    def __init__(self, bootstrap, user, password, txn_id):
        self.conn = Conn(bootstrap, user, password)
        self.txn_id = txn_id
        self.pid = -1
        self.epoch = -1

    def call(self, key, version, body):
        return _raw_request(self.conn.sock, key, version,
                            self.conn.next_corr(), body)

    def init(self, timeout_ms=60000, version=1):
        """InitProducerId: its error; the id and epoch are kept"""
        body = self.call(22, version, s16(self.txn_id) +
                         struct.pack('>i', timeout_ms))
        throttle, err, pid, epoch = struct.unpack('>ihqh', body[:16])
        if err == 0:
            self.pid, self.epoch = pid, epoch
        return err

    def init_until_done(self, timeout_ms=60000):
        """InitProducerId retried while it answers CONCURRENT_TRANSACTIONS
        (51), as clients do: the errors seen"""
        return retry_concurrent(lambda: self.init(timeout_ms))[0]

    def add_partitions(self, topic, partitions, version=1, epoch=None):
        """AddPartitionsToTxn: [[partition, error], ...]"""
        body = (s16(self.txn_id) + struct.pack('>qh', self.pid,
                                               self.epoch if epoch is None else epoch)
                + struct.pack('>i', 1) + s16(topic)
                + struct.pack('>i', len(partitions))
                + b''.join(struct.pack('>i', p) for p in partitions))
        body = self.call(24, version, body)
        off = 4
        ntopics = struct.unpack('>i', body[off:off + 4])[0]
        off += 4
        out = []
        for _ in range(ntopics):
            n = struct.unpack('>h', body[off:off + 2])[0]
            off += 2 + n
            nparts = struct.unpack('>i', body[off:off + 4])[0]
            off += 4
            for _ in range(nparts):
                p, e = struct.unpack('>ih', body[off:off + 6])
                off += 6
                out.append([p, e])
        return out

    def add_offsets(self, group, version=1):
        body = self.call(25, version, s16(self.txn_id) +
                         struct.pack('>qh', self.pid, self.epoch) + s16(group))
        return struct.unpack('>ih', body[:6])[1]

    def offset_commit(self, group, topic, positions, version=0):
        """TxnOffsetCommit (v0-2) of positions [(partition, offset,
        metadata)]: [[partition, error], ...]"""
        def partition(p):
            out = struct.pack('>iq', p[0], p[1])
            if version >= 2:
                out += struct.pack('>i', -1)
            return out + s16(p[2])
        body = (s16(self.txn_id) + s16(group)
                + struct.pack('>qh', self.pid, self.epoch)
                + struct.pack('>i', 1) + s16(topic)
                + struct.pack('>i', len(positions))
                + b''.join(partition(p) for p in positions))
        body = self.call(28, version, body)
        off = 4 + 4
        n = struct.unpack('>h', body[off:off + 2])[0]
        off += 2 + n
        nparts = struct.unpack('>i', body[off:off + 4])[0]
        off += 4
        return [list(struct.unpack('>ih', body[off + 6 * i:off + 6 * i + 6]))
                for i in range(nparts)]

    def end(self, commit, version=1, epoch=None):
        body = self.call(26, version, s16(self.txn_id) +
                         struct.pack('>qhb', self.pid,
                                     self.epoch if epoch is None else epoch,
                                     1 if commit else 0))
        return struct.unpack('>ih', body[:6])[1]

    def produce(self, topic, partition, value, seq=0, epoch=None,
                transactional=True, txn_id=None, count=1, version=3):
        """Produce (v3 to v8: one layout up to the partition's base
        offset) of count records (keyless): [error, base offset]"""
        b = DefaultRecordBatchBuilder(2, 0, transactional, self.pid,
                                      self.epoch if epoch is None else epoch,
                                      seq, 1 << 20)
        for i in range(count):
            b.append(i, timestamp=None, key=None,
                     value=value.encode() if i == 0 else b'', headers=[])
        records = bytes(b.build())
        tid = self.txn_id if txn_id is None else txn_id
        body = (s16(tid) + struct.pack('>hi', -1, 30000)
                + struct.pack('>i', 1) + s16(topic) + struct.pack('>i', 1)
                + struct.pack('>i', partition)
                + struct.pack('>i', len(records)) + records)
        body = self.call(0, version, body)
        off = 4 + 2 + len(topic.encode()) + 4
        p, err, base = struct.unpack('>ihq', body[off:off + 14])
        return [err, base]


def errors(bootstrap, topic, user, password):
    """The error paths of a transactional producer, by raw frames"""
    out = {}
    t = Txn(bootstrap, user, password, 'raw-errors')
    out['empty_id'] = Txn(bootstrap, user, password, '').init()
    out['long_id'] = Txn(bootstrap, user, password, 'x' * 1025).init()
    out['longest_id'] = Txn(bootstrap, user, password, 'y' * 1024).init()
    out['timeout_too_long'] = t.init(timeout_ms=3600000)
    out['timeout_zero'] = t.init(timeout_ms=0)
    out['init'] = t.init()
    out['init_epoch'] = t.epoch
    out['produce_unknown_id'] = t.produce(topic, 0, 'x', txn_id='nobody')[0]
    out['produce_no_txn'] = t.produce(topic, 0, 'x')[0]
    out['end_no_txn'] = t.end(True)
    out['add_unknown_topic'] = t.add_partitions('no_such_topic', [0])
    out['add_bad_partition'] = t.add_partitions(topic, [0, 99])
    out['add_old_epoch_v1'] = t.add_partitions(topic, [0], version=1,
                                               epoch=t.epoch - 1 if t.epoch > 0 else 5)
    out['add_old_epoch_v2'] = t.add_partitions(topic, [0], version=2,
                                               epoch=t.epoch - 1 if t.epoch > 0 else 5)
    out['add'] = t.add_partitions(topic, [0])
    out['produce_not_added'] = t.produce(topic, 1, 'not-added')[0]
    out['produce_not_transactional'] = t.produce(topic, 0, 'plain', transactional=False)[0]
    out['produce'] = t.produce(topic, 0, 'raw-committed')[0]
    # a keyless record for a compacted topic: refused, the record named
    t.add_partitions('txn_compacted', [0])
    # (v8 names each refused record in its answer)
    out['produce_keyless'] = t.produce('txn_compacted', 0, 'keyless', seq=0,
                                       count=2000, version=8)[0]
    out['add_group_bad'] = t.add_offsets('')
    out['commit'] = t.end(True)
    out['commit_again'] = t.end(True)
    out['abort_after_commit'] = t.end(False)
    # a newer epoch fences the open transaction's producer
    t.add_partitions(topic, [0])
    t.produce(topic, 0, 'raw-fenced', seq=1)
    old = Txn(bootstrap, user, password, 'raw-errors')
    old.pid, old.epoch = t.pid, t.epoch
    out['reinit'] = t.init_until_done()
    out['old_produce'] = old.produce(topic, 0, 'raw-old', seq=2)[0]
    out['old_end_v1'] = old.end(True, version=1)
    out['old_end_v2'] = old.end(True, version=2)
    out['new_epoch'] = t.epoch
    return out


def init_v(t, version, pid, epoch):
    """InitProducerId v3+ (flexible) naming the producer the client was
    (KIP-360): [error, producer id is the same, epoch]"""
    e = raw_wire.Enc(True)
    body = (e.string(t.txn_id) + struct.pack('>iqh', 60000, pid, epoch)
            + e.tags())
    data = raw_wire.call(t.conn.sock, 22, version, t.conn.next_corr(), body,
                         'raw', True)
    # the response header's tagged fields (none), then the body
    throttle, err, got_pid, got_epoch = struct.unpack('>ihqh', data[1:17])
    return [err, int(got_pid == pid), got_epoch]


def own_fence(bootstrap, topic, user, password):
    """InitProducerId v4 naming the producer the client is while its
    transaction is open (KIP-360): the transaction is aborted and the
    retries of the same request, answered CONCURRENT_TRANSACTIONS until the
    abort ended, then get the next epoch"""
    t = Txn(bootstrap, user, password, 'own-fence')
    t.init()
    t.add_partitions(topic, [0])
    t.produce(topic, 0, 'own-fence-aborted')
    pid, epoch = t.pid, t.epoch
    seen, r = retry_concurrent(lambda: init_v(t, 4, pid, epoch),
                               lambda r: r[0], 0.05)
    return {'epoch': epoch, 'seen': seen, 'last': r}


def recovery(bootstrap, user, password):
    """InitProducerId v3+ with the producer id and epoch the client had"""
    t = Txn(bootstrap, user, password, 'recovering')
    t.init()
    t.init()
    pid, epoch = t.pid, t.epoch
    return {'epoch': epoch,
            'current': init_v(t, 4, pid, epoch),
            'retry': init_v(t, 4, pid, epoch),
            'stale_v4': init_v(t, 4, pid, epoch - 1),
            'stale_v3': init_v(t, 3, pid, epoch - 1),
            'other_id': init_v(t, 4, pid + 1, epoch + 1),
            'zombie': zombie(t, pid)}


def zombie(t, pid):
    """A new instance's InitProducerId (naming no producer) bumps the
    epoch; the instance it fenced then names its epoch: fenced"""
    t.init()
    return init_v(t, 4, pid, t.epoch - 1)


def init_named(t, version, pid, epoch):
    """InitProducerId v3+ naming a producer (KIP-360): [error, producer id,
    epoch]"""
    e = raw_wire.Enc(True)
    body = (e.string(t.txn_id) + struct.pack('>iqh', 60000, pid, epoch)
            + e.tags())
    data = raw_wire.call(t.conn.sock, 22, version, t.conn.next_corr(), body,
                         'raw', True)
    throttle, err, got_pid, got_epoch = struct.unpack('>ihqh', data[1:17])
    return [err, got_pid, got_epoch]


def exhausted(bootstrap, user, password, txn_id, pid, epoch):
    """InitProducerId v4 naming the producer (pid, epoch) whose epochs ran
    out, then its retries (the answer lost): each answer"""
    t = Txn(bootstrap, user, password, txn_id)
    pid, epoch = int(pid), int(epoch)
    return {'first': init_named(t, 4, pid, epoch),
            'retry': init_named(t, 4, pid, epoch),
            'older': init_named(t, 4, pid, epoch - 1)}


def exhausted_own_fence(bootstrap, topic, user, password, txn_id, pid, epoch):
    """InitProducerId v4 naming the producer (pid, epoch) of the open
    transaction at the last epoch, retried while CONCURRENT_TRANSACTIONS,
    then once more; the producer it got then commits a transaction"""
    t = Txn(bootstrap, user, password, txn_id)
    pid, epoch = int(pid), int(epoch)
    seen, r = retry_concurrent(lambda: init_named(t, 4, pid, epoch),
                               lambda r: r[0], 0.05)
    retry = init_named(t, 4, pid, epoch)
    t.pid, t.epoch = r[1], r[2]
    return {'seen': seen, 'last': r, 'retry': retry,
            'add': t.add_partitions(topic, [0]),
            'produce': t.produce(topic, 0, 'after-exhausted-' + txn_id)[0],
            'commit': t.end(True)}


def null_partitions(bootstrap, topic, user, password, txn_id, pid, epoch, count):
    """Produce v9 of the open transaction naming partition 0 count times,
    each with null records: the partitions answered, or 'closed'"""
    t = Txn(bootstrap, user, password, txn_id)
    count = int(count)
    e = raw_wire.Enc(True)
    part = e.int32(0) + e.bytes(None) + e.tags()
    body = (e.string(txn_id) + e.int16(-1) + e.int32(30000)
            + e.array([e.string(topic) + e.array([part] * count) + e.tags()])
            + e.tags())
    try:
        data = raw_wire.call(t.conn.sock, 0, 9, t.conn.next_corr(), body,
                             'raw', True)
    except Exception:
        return {'answered': 'closed'}
    # header tags, the topics (one), its name, its partitions
    off = 1
    ntopics, off = uvarint_at(data, off)
    n, off = uvarint_at(data, off)
    off += n - 1
    nparts, off = uvarint_at(data, off)
    errors = set()
    for _ in range(nparts - 1):
        errors.add(struct.unpack('>h', data[off + 4:off + 6])[0])
        off += 4 + 2 + 8 + 8 + 8
        nrec, off = uvarint_at(data, off)
        assert nrec == 1
        msg, off = uvarint_at(data, off)
        off += max(msg - 1, 0)
        tags, off = uvarint_at(data, off)
        assert tags == 0
    return {'answered': nparts - 1, 'errors': sorted(errors)}


def uvarint_at(data, off):
    """An unsigned varint at off: its value and the offset after it"""
    n = shift = 0
    while True:
        b = data[off]
        off += 1
        n |= (b & 0x7f) << shift
        shift += 7
        if b < 0x80:
            return n, off


def fenced_node(bootstrap, topic, user, password):
    """The transaction APIs of a node that refuses writes"""
    t = Txn(bootstrap, user, password, 'on-fenced-node')
    out = {'init': t.init()}
    t.pid, t.epoch = 1, 0
    out['add'] = t.add_partitions(topic, [0])
    out['end'] = t.end(True)
    return out


def begin(bootstrap, topic, user, password, txn_id, timeout_ms):
    """A transaction begun and one record produced; the producer's id and
    epoch for the later commands"""
    t = Txn(bootstrap, user, password, txn_id)
    init = t.init_until_done(int(timeout_ms))
    add = t.add_partitions(topic, [0])
    produced = t.produce(topic, 0, 'begun-' + txn_id)
    return {'init': init, 'add': add, 'produce': produced,
            'pid': t.pid, 'epoch': t.epoch}


def init_only(bootstrap, user, password, txn_id, timeout_ms):
    """InitProducerId of txn_id, once: its error, producer id and epoch"""
    t = Txn(bootstrap, user, password, txn_id)
    err = t.init(int(timeout_ms))
    return {'init': err, 'pid': t.pid, 'epoch': t.epoch}


def locked(bootstrap, topic, user, password, txn_id, pid, epoch):
    """The requests of txn_id while another transaction holds its row:
    each error, or 'closed' when the connection was closed"""
    out = {}
    for name, request in (
            ('init', lambda t: t.init()),
            ('add', lambda t: t.add_partitions(topic, [0])),
            ('end', lambda t: t.end(True))):
        t = Txn(bootstrap, user, password, txn_id)
        t.pid, t.epoch = int(pid), int(epoch)
        try:
            out[name] = request(t)
        except Exception:
            out[name] = 'closed'
    return out


def add_failing(bootstrap, topic, user, password, txn_id, pid, epoch, count):
    """AddPartitionsToTxn of txn_id naming partition 0 count times:
    'closed' (the request failed), or its answer"""
    t = Txn(bootstrap, user, password, txn_id)
    t.pid, t.epoch = int(pid), int(epoch)
    try:
        return {'add': t.add_partitions(topic, [0] * int(count))}
    except Exception:
        return {'add': 'closed'}


def resume(bootstrap, topic, user, password, txn_id, pid, epoch):
    """The producer of begin goes on after its transaction was lost or
    timed out: its requests' errors"""
    t = Txn(bootstrap, user, password, txn_id)
    t.pid, t.epoch = int(pid), int(epoch)
    return {'produce': t.produce(topic, 0, 'resumed', seq=1)[0],
            'add_v1': t.add_partitions(topic, [0], version=1),
            'end_v2': t.end(True, version=2)}


def next_txn(bootstrap, topic, user, password, txn_id, pid, epoch, seq):
    """The producer of begin, its transaction ended, begins its next one
    (no InitProducerId): AddPartitionsToTxn's and Produce's errors"""
    t = Txn(bootstrap, user, password, txn_id)
    t.pid, t.epoch = int(pid), int(epoch)
    add = t.add_partitions(topic, [0])
    produced = t.produce(topic, 0, 'next-' + txn_id, seq=int(seq))
    return {'add': add, 'produce': produced[0]}


def idle_commits(bootstrap, topic, user, password, n):
    """n producers commit a transaction each: EndTxn's errors"""
    out = []
    for i in range(int(n)):
        t = Txn(bootstrap, user, password, 'idle-%d' % i)
        t.init()
        t.add_partitions(topic, [0])
        t.produce(topic, 0, 'idle-%d' % i)
        out.append(t.end(True))
    return out


def busy_limits(bootstrap, topic, user, password, n):
    """n producers begin a transaction each, AddPartitionsToTxn retried
    while it answers CONCURRENT_TRANSACTIONS (51) as clients do, then one
    more begins, once: the errors of the n and of the one more"""
    def begin_until_done(t):
        return retry_concurrent(lambda: t.add_partitions(topic, [0])[0][1])[1]
    busy = []
    errors = []
    for i in range(int(n)):
        t = Txn(bootstrap, user, password, 'busy-%d' % i)
        t.init()
        errors.append(begin_until_done(t))
        busy.append(t)
    extra = Txn(bootstrap, user, password, 'busy-extra')
    extra.init()
    over = extra.add_partitions(topic, [0])[0][1]
    for t in busy:
        t.end(False)
    return {'busy': errors, 'over': over}


def reinit_and_commit(bootstrap, topic, user, password, txn_id):
    """InitProducerId of the id again, then a whole transaction of two
    batches, committed"""
    t = Txn(bootstrap, user, password, txn_id)
    init = t.init_until_done()
    add = t.add_partitions(topic, [0])
    first = t.produce(topic, 0, 'again-1-' + txn_id, seq=0)[0]
    second = t.produce(topic, 0, 'again-2-' + txn_id, seq=1)[0]
    return {'init': init, 'epoch': t.epoch, 'add': add,
            'produce': [first, second], 'commit': t.end(True)}


def limit(bootstrap, topic, user, password):
    """Two transactions of one role begun, the second over the limit"""
    a = Txn(bootstrap, user, password, 'limit-a')
    b = Txn(bootstrap, user, password, 'limit-b')
    a.init()
    b.init()
    first = a.add_partitions(topic, [0])
    second = b.add_partitions(topic, [0])
    a.end(False)
    after = b.add_partitions(topic, [0])
    b.end(False)
    return {'first': first, 'second': second, 'after': after}


def role_owns(bootstrap, owner, owner_pw, thief, thief_pw):
    """A transactional id is its first user's"""
    a = Txn(bootstrap, owner, owner_pw, 'owned-id')
    b = Txn(bootstrap, thief, thief_pw, 'owned-id')
    first = a.init()
    stolen = b.init()
    # the thief's Produce with the owner's id
    b.pid, b.epoch = a.pid, a.epoch
    produce = b.produce('txn_topic', 0, 'stolen')[0]
    return {'first': first, 'stolen': stolen, 'produce': produce}


def confluent(bootstrap, topic, source, user, password):
    """confluent-kafka's transactional producer, consuming source and
    producing topic exactly once: a committed transaction with its group
    position, an aborted one; a read_committed consumer sees only the
    committed records; a second producer of the id fences the first"""
    from confluent_kafka import Producer, Consumer, TopicPartition, KafkaException
    auth = {'bootstrap.servers': bootstrap, 'security.protocol': 'SASL_PLAINTEXT',
            'sasl.mechanisms': 'PLAIN', 'sasl.username': user,
            'sasl.password': password}
    seed = Producer(dict(auth))
    for i in range(10):
        seed.produce(source, value='v%d' % i)
    seed.flush(30)
    c = Consumer(dict(auth, **{'group.id': 'txn-group', 'auto.offset.reset': 'earliest',
                               'enable.auto.commit': False,
                               'isolation.level': 'read_committed'}))
    c.subscribe([source])
    got = []
    deadline = time.time() + 60
    while len(got) < 10 and time.time() < deadline:
        m = c.poll(1)
        if m is not None and not m.error():
            got.append(m)
    p = Producer(dict(auth, **{'transactional.id': 'confluent-txn'}))
    p.init_transactions(30)
    p.begin_transaction()
    for m in got[:5]:
        p.produce(topic, value='committed-' + m.value().decode())
    p.send_offsets_to_transaction([TopicPartition(source, 0, got[4].offset() + 1)],
                                  c.consumer_group_metadata(), 30)
    p.commit_transaction(30)
    p.begin_transaction()
    for m in got[5:]:
        p.produce(topic, value='aborted-' + m.value().decode())
    p.send_offsets_to_transaction([TopicPartition(source, 0, got[9].offset() + 1)],
                                  c.consumer_group_metadata(), 30)
    p.flush(30)
    p.abort_transaction(30)
    committed = c.committed([TopicPartition(source, 0)], 30)[0].offset
    c.close()

    # a read_committed consumer of topic: the committed records only
    r = Consumer(dict(auth, **{'group.id': 'txn-reader', 'auto.offset.reset': 'earliest',
                               'isolation.level': 'read_committed'}))
    r.subscribe([topic])
    seen = []
    deadline = time.time() + 20
    while time.time() < deadline:
        m = r.poll(1)
        if m is not None and not m.error():
            seen.append(m.value().decode())
        if len(seen) >= 5 and m is None:
            break
    r.close()

    # fencing: a second producer of the id; the first's commit fails
    p.begin_transaction()
    p.produce(topic, value='fenced')
    p.flush(30)
    p2 = Producer(dict(auth, **{'transactional.id': 'confluent-txn'}))
    p2.init_transactions(30)
    fenced = None
    try:
        p.commit_transaction(30)
    except KafkaException as e:
        fenced = e.args[0].name()
    # a transaction of many batches of one partition (each flushed alone),
    # after an aborted one took sequence numbers
    p2.begin_transaction()
    for i in range(8):
        p2.produce(topic, value='after-fence-%d' % i)
        p2.flush(30)
    p2.commit_transaction(30)
    return {'got': len(got), 'committed_position': committed,
            'read_committed': sorted(seen), 'fenced': fenced}


def two_partitions(bootstrap, topic, user, password, txn_id):
    """A transaction that adds its second partition after its first
    Produce, committed: each request's error"""
    t = Txn(bootstrap, user, password, txn_id)
    out = {'init': t.init_until_done()}
    out['add0'] = t.add_partitions(topic, [0])
    out['produce0'] = t.produce(topic, 0, txn_id + '-0')[0]
    out['add1'] = t.add_partitions(topic, [1])
    out['produce1'] = t.produce(topic, 1, txn_id + '-1')[0]
    out['commit'] = t.end(True)
    return out


def fenced_worker(bootstrap, topic, user, password, txn_id, pid, epoch):
    """The producer of begin goes on on a node fenced since: a Produce and
    EndTxn(commit)"""
    t = Txn(bootstrap, user, password, txn_id)
    t.pid, t.epoch = int(pid), int(epoch)
    return {'produce': t.produce(topic, 0, 'fenced-' + txn_id, seq=1)[0],
            'commit': t.end(True)}


def commit(bootstrap, user, password, txn_id, pid, epoch):
    """EndTxn(commit) of the producer given"""
    t = Txn(bootstrap, user, password, txn_id)
    t.pid, t.epoch = int(pid), int(epoch)
    return {'commit': t.end(True)}


def abort(bootstrap, user, password, txn_id, pid, epoch):
    """EndTxn(abort) of the producer given"""
    t = Txn(bootstrap, user, password, txn_id)
    t.pid, t.epoch = int(pid), int(epoch)
    return {'abort': t.end(False)}


def sequence_gaps(bootstrap, topic, user, password):
    """Sequence numbers in a transaction: a gap is taken only for a
    partition's first batch of a transaction"""
    t = Txn(bootstrap, user, password, 'sequence-gaps')
    out = {'init': t.init_until_done()}
    t.add_partitions(topic, [0])
    out['first'] = t.produce(topic, 0, 'gaps-a', seq=0)[0]
    out['gap'] = t.produce(topic, 0, 'gaps-gap', seq=5)[0]
    out['next'] = t.produce(topic, 0, 'gaps-b', seq=1)[0]
    out['commit'] = t.end(True)
    # the next transaction's first batch may follow batches the table
    # never kept (an aborted transaction's, before a restart)
    t.add_partitions(topic, [0])
    out['first_of_next'] = t.produce(topic, 0, 'gaps-c', seq=10)[0]
    out['gap_of_next'] = t.produce(topic, 0, 'gaps-gap', seq=20)[0]
    out['commit_next'] = t.end(True)
    return out


def wide(bootstrap, topic, user, password, n):
    """A transaction writing n partitions, a Produce each, left open"""
    t = Txn(bootstrap, user, password, 'wide-txn')
    init = t.init_until_done()
    add = t.add_partitions(topic, list(range(int(n))))
    errors = set(t.produce(topic, p, 'wide-%d' % p)[0] for p in range(int(n)))
    return {'init': init, 'add': sorted(set(e for _, e in add)),
            'produce': sorted(errors), 'pid': t.pid, 'epoch': t.epoch}


def failed_produce(bootstrap, topic, json_topic, user, password):
    """A transaction whose Produce fails (a record a jsonb topic refuses):
    the requests after it, its commit, its abort, the next transaction"""
    t = Txn(bootstrap, user, password, 'failed-produce')
    out = {'init': t.init_until_done()}
    t.add_partitions(topic, [0])
    t.add_partitions(json_topic, [0])
    out['produce'] = t.produce(topic, 0, 'failed-txn-ok', seq=0)[0]
    out['bad'] = t.produce(json_topic, 0, '{not json', seq=0)[0]
    out['after'] = t.produce(topic, 0, 'failed-txn-after', seq=1)[0]
    out['commit'] = t.end(True)
    out['abort'] = t.end(False)
    out['epoch'] = t.epoch
    t.add_partitions(topic, [0])
    out['next'] = t.produce(topic, 0, 'failed-txn-next', seq=1)[0]
    out['next_commit'] = t.end(True)
    return out


def add_offsets_checks(bootstrap, topic, user, password, other, other_pw):
    """AddOffsetsToTxn of a group another role's consumer holds, of the
    same group twice, of groups up to the limit and one more; the
    transaction is left open"""
    from confluent_kafka import Consumer
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'others-group',
                  'security.protocol': 'SASL_PLAINTEXT',
                  'sasl.mechanisms': 'PLAIN', 'sasl.username': other,
                  'sasl.password': other_pw, 'enable.auto.commit': False})
    c.subscribe([topic])
    deadline = time.time() + 60
    while not c.assignment() and time.time() < deadline:
        c.poll(0.5)
    t = Txn(bootstrap, user, password, 'offsets-checks')
    out = {'joined': len(c.assignment()) > 0, 'init': t.init_until_done()}
    out['others'] = t.add_offsets('others-group')
    c.close()
    out['own'] = t.add_offsets('own-group')
    out['own_again'] = t.add_offsets('own-group')
    out['more'] = sorted(set(t.add_offsets('group-%d' % i) for i in range(63)))
    out['over'] = t.add_offsets('one-too-many')
    out['pid'], out['epoch'] = t.pid, t.epoch
    return out


def pending_offsets(bootstrap, topic, user, password, n):
    """A transaction's TxnOffsetCommit of the group's n first partitions
    of topic, left pending while another connection commits, deletes and
    reads the same positions: each answer's errors and how long it took
    (the listener must not wait for the transaction's locks); then the
    transaction commits and the plain commit goes through"""
    import group_apis
    n = int(n)
    group = 'pending-offsets'
    other = Conn(bootstrap, user, password)

    def timed(fn, *args, **kwargs):
        start = time.time()
        got = fn(other.sock, *args, corr=other.next_corr(), **kwargs)
        return got, round(time.time() - start, 2)

    out = {}
    # the group's positions exist before the transaction (DeleteGroups
    # then has them to clear)
    out['before'] = sorted(set(e for _, e in group_apis.offset_commit(
        other.sock, 2, group, topic, [(p, 0, 'plain') for p in range(n)],
        corr=other.next_corr())))
    t = Txn(bootstrap, user, password, 'pending-offsets')
    out['init'] = t.init_until_done()
    out['add'] = t.add_offsets(group)
    out['txn_commit'] = sorted(set(e for _, e in t.offset_commit(
        group, topic, [(p, 5, 'txn') for p in range(n)])))
    got, out['commit_seconds'] = timed(
        group_apis.offset_commit, 2, group, topic,
        [(p, 7, 'plain') for p in range(n)])
    out['commit'] = sorted(set(e for _, e in got))
    got, out['delete_seconds'] = timed(group_apis.offset_delete, group,
                                       topic, list(range(n)))
    out['delete'] = [got[0], sorted(set(e for _, e in got[1]))]
    got, out['delete_group_seconds'] = timed(group_apis.delete_groups, 1,
                                             [group])
    out['delete_group'] = got[group]
    got, out['fetch_seconds'] = timed(group_apis.offset_fetch, 7, group,
                                      topic, list(range(n)))
    out['fetch_pending'] = sorted(set((o, e) for _, o, _, e in got[0]))
    got = group_apis.offset_fetch(other.sock, 7, group, topic, list(range(n)),
                                  corr=other.next_corr(), stable=True)
    out['fetch_stable'] = sorted(set((o, e) for _, o, _, e in got[0]))
    out['end'] = t.end(True)
    got = group_apis.offset_fetch(other.sock, 7, group, topic, list(range(n)),
                                  corr=other.next_corr())
    out['fetch_committed'] = sorted(set((o, m, e) for _, o, m, e in got[0]))
    got = group_apis.offset_fetch(other.sock, 7, group, topic, list(range(n)),
                                  corr=other.next_corr(), stable=True)
    out['fetch_stable_after'] = sorted(set((o, e) for _, o, _, e in got[0]))
    out['commit_after'] = sorted(set(e for _, e in group_apis.offset_commit(
        other.sock, 2, group, topic, [(p, 7, 'plain') for p in range(n)],
        corr=other.next_corr())))
    return out


if __name__ == '__main__':
    bootstrap, command = sys.argv[1], sys.argv[2]
    print(json.dumps(globals()[command](bootstrap, *sys.argv[3:])))
