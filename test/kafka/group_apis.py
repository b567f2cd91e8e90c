"""The group APIs at old and flexible versions, written byte by byte, for
test/t/052_kafka_group_apis.pl: sarama's default OffsetCommit v0/v1 and
OffsetFetch v0, JoinGroup, SyncGroup, Heartbeat, LeaveGroup,
DescribeGroups and ListGroups at flexible versions, DeleteGroups and
OffsetDelete, negative commits answered back, DeleteGroups as a static member's session
ends; and static membership with confluent-kafka.

Run with Debian's /usr/bin/python3 (confluent-kafka 1.7.0 on librdkafka
2.0.2):

    group_apis.py BOOTSTRAP COMMAND [ARGS...]

Each command prints one JSON document: what the server answered.
"""
import json
import struct
import sys
import time

import raw_wire
from raw_wire import Dec, Enc, connect


# the first flexible version of each API
FLEXIBLE = {8: 8, 9: 6, 11: 6, 12: 4, 13: 4, 14: 4, 15: 5, 16: 3, 42: 2, 47: 99}


def call(sock, key, version, corr, body):
    """One request (header v1, or v2 in a flexible version); the response
    body after its header (v0, or v1 with tagged fields), as a Dec"""
    flexible = version >= FLEXIBLE[key]
    d = Dec(raw_wire.call(sock, key, version, corr, body, 'group-apis', flexible),
            flexible)
    d.tags()                    # the response header's, if flexible
    return d


def subscription(topics):
    """ConsumerProtocolSubscription v0"""
    e = Enc(False)
    return struct.pack('>h', 0) + e.array(topics, e.string) + e.bytes(b'')


def assignment(topic, partitions):
    """ConsumerProtocolAssignment v0"""
    e = Enc(False)
    return (struct.pack('>h', 0)
            + e.array([topic], lambda t: e.string(t)
                      + e.array(partitions, e.int32))
            + e.bytes(b''))


def offset_commit(sock, version, group, topic, positions, generation=-1,
                  member='', corr=1):
    """OffsetCommit of positions [(partition, offset, metadata)]: the
    [partition, error] answered"""
    e = Enc(version >= 8)
    body = e.string(group)
    if version >= 1:
        body += struct.pack('>i', generation) + e.string(member)
    if version >= 7:
        body += e.string(None)
    if 2 <= version <= 4:
        body += struct.pack('>q', -1)

    def partition(p):
        out = struct.pack('>iq', p[0], p[1])
        if version >= 6:
            out += struct.pack('>i', -1)
        if version == 1:
            out += struct.pack('>q', int(time.time() * 1000))
        return out + e.string(p[2]) + e.tags()
    body += e.array([topic], lambda t: e.string(t)
                    + e.array(positions, partition) + e.tags()) + e.tags()
    d = call(sock, 8, version, corr, body)
    if version >= 3:
        d.i32()
    out = []

    def part():
        p, err = d.i32(), d.i16()
        d.tags()
        out.append([p, err])

    def top():
        d.string()
        d.array(part)
        d.tags()
    d.array(top)
    return out


def offset_fetch(sock, version, group, topic, partitions, corr=2, raw=False,
                 stable=False):
    """OffsetFetch of one group (v0-7): [partition, offset, metadata,
    error] and the top-level error (v2+); with raw, the metadata's bytes
    in hex; stable: require_stable (v7)"""
    e = Enc(version >= 6)
    body = e.string(group) + e.array(
        [topic], lambda t: e.string(t) + e.array(
            partitions, e.int32) + e.tags())
    if version >= 7:
        body += b'\x01' if stable else b'\x00'
    body += e.tags()
    d = call(sock, 9, version, corr, body)
    if version >= 3:
        d.i32()
    out = []

    def part():
        p, off = d.i32(), d.i64()
        if version >= 5:
            d.i32()
        meta = d.raw_string()
        err = d.i16()
        if meta is not None:
            meta = meta.hex() if raw else meta.decode()
        d.tags()
        out.append([p, off, meta, err])

    def top():
        d.string()
        d.array(part)
        d.tags()
    d.array(top)
    return out, (d.i16() if version >= 2 else None)


def offset_fetch_groups(sock, groups, topic, partitions, corr=3):
    """OffsetFetch v8 of many groups: {group: [error, [[partition, offset,
    error]]]}"""
    e = Enc(True)
    body = e.array(groups, lambda g: e.string(g) + e.array(
        [topic], lambda t: e.string(t) + e.array(
            partitions, e.int32) + e.tags()) + e.tags())
    body += b'\x00' + e.tags()
    d = call(sock, 9, 8, corr, body)
    d.i32()
    out = {}

    def group():
        name = d.string()
        rows = []

        def part():
            p, off, _, _, err = d.i32(), d.i64(), d.i32(), d.string(), d.i16()
            d.tags()
            rows.append([p, off, err])

        def top():
            d.string()
            d.array(part)
            d.tags()
        d.array(top)
        out[name] = [d.i16(), rows]
        d.tags()
    d.array(group)
    return out


def sarama_defaults(bootstrap, topic, group):
    """What sarama sends with its default Version (0.8.2): OffsetCommit v0
    and v1 (outside any group), read back by OffsetFetch v0 and v1"""
    s = connect(bootstrap)
    v0 = offset_commit(s, 0, group, topic, [(0, 3, 'zero')], corr=1)
    v1 = offset_commit(s, 1, group, topic, [(1, 4, None)], corr=2)
    f0, _ = offset_fetch(s, 0, group, topic, [0, 1, 7], corr=3)
    f2, top = offset_fetch(s, 2, 'no-such-group-here', topic, [0], corr=4)
    s.close()
    return {'commit_v0': v0, 'commit_v1': v1, 'fetch_v0': f0,
            'unknown_group_v2': [f2, top]}


def binary_metadata(bootstrap, topic, group):
    """OffsetCommit of metadata that is not text (a NUL, invalid UTF-8) at
    v2 (strings with int16 lengths) and v8 (compact strings), and of text
    and null; OffsetFetch v1 and v6 read them back: each partition's
    [offset, metadata in hex, error]; and metadata at and over Kafka's
    limit"""
    s = connect(bootstrap)
    out = {}
    out['commit_v2'] = offset_commit(s, 2, group, topic,
                                     [(0, 1, b'a\x00b'), (1, 2, b'\xff\xfe\x00')], corr=80)
    out['fetch_v1'] = [r[1:] for r in offset_fetch(s, 1, group, topic, [0, 1], corr=81, raw=True)[0]]
    out['commit_v8'] = offset_commit(s, 8, group, topic,
                                     [(0, 3, 'caf\u00e9'), (1, 4, None)], corr=82)
    out['fetch_v6_text'] = [r[1:] for r in offset_fetch(s, 6, group, topic, [0, 1], corr=83, raw=True)[0]]
    out['commit_v8_binary'] = offset_commit(s, 8, group, topic,
                                            [(0, 5, b'\x00' * 3 + b'\x80')], corr=84)
    out['fetch_v6'] = [r[1:] for r in offset_fetch(s, 6, group, topic, [0], corr=85, raw=True)[0]]
    # Kafka's offset.metadata.max.bytes (4096), counted as Java counts a
    # String: 4096 two-byte characters are allowed, 4097 bytes of ASCII not
    out['commit_v8_max'] = offset_commit(s, 8, group + '-max', topic,
                                         [(0, 6, '\u00e9' * 4096), (1, 7, 'x' * 4097)], corr=86)
    fetched = offset_fetch(s, 1, group + '-max', topic, [0, 1], corr=87)[0]
    out['fetch_v1_max'] = [[r[1], len(r[2]), int(r[2] == '\u00e9' * 4096)] for r in fetched]
    s.close()
    return out


def negative_commits(bootstrap, topic, group):
    """OffsetCommit of Kafka's -2 and -1 (what kafkajs's resetOffsets and
    other tools commit) with metadata, outside any group, at v2 and v8;
    OffsetFetch v1, v6 and v8 read them back: [partition, offset,
    metadata, error]"""
    s = connect(bootstrap)
    out = {}
    out['commit_v8'] = offset_commit(s, 8, group, topic,
                                     [(0, -2, 'to-earliest'), (1, -1, 'to-none')], corr=90)
    out['fetch_v6'] = offset_fetch(s, 6, group, topic, [0, 1], corr=91)[0]
    out['fetch_v1'] = offset_fetch(s, 1, group, topic, [0, 1], corr=92)[0]
    out['fetch_v8'] = offset_fetch_groups(s, [group], topic, [0, 1], corr=93)
    out['commit_v2'] = offset_commit(s, 2, group + '-v2', topic,
                                     [(0, -2, 'v2-meta')], corr=94)
    out['fetch_v2'] = offset_fetch(s, 2, group + '-v2', topic, [0, 1], corr=95)
    s.close()
    return out


def join(sock, version, group, topic, member, instance=None, corr=10,
         session_ms=10000):
    """JoinGroup: [error, generation, protocol type (v7+), protocol,
    leader, member id, [[member id, instance id]], skip assignment (v9+)]"""
    e = Enc(version >= 6)
    body = e.string(group) + struct.pack('>ii', session_ms, 30000) + e.string(member)
    if version >= 5:
        body += e.string(instance)
    body += e.string('consumer') + e.array(
        [('range', subscription([topic]))],
        lambda p: e.string(p[0]) + e.bytes(p[1]) + e.tags())
    if version >= 8:
        body += e.string('test')
    body += e.tags()
    d = call(sock, 11, version, corr, body)
    d.i32()
    err, gen = d.i16(), d.i32()
    ptype = d.string() if version >= 7 else None
    proto, leader = d.string(), d.string()
    skip = bool(d.i8()) if version >= 9 else None
    me = d.string()

    def member_row():
        mid = d.string()
        inst = d.string() if version >= 5 else None
        d.bytes()
        d.tags()
        return [mid, inst]
    members = d.array(member_row)
    return [err, gen, ptype, proto, leader, me, members, skip]


def sync(sock, version, group, gen, member, assignments, corr=11, instance=None):
    """SyncGroup: [error, protocol type (v5+), protocol (v5+), assignment
    bytes as hex]"""
    e = Enc(version >= 4)
    body = e.string(group) + struct.pack('>i', gen) + e.string(member)
    if version >= 3:
        body += e.string(instance)
    if version >= 5:
        body += e.string('consumer') + e.string('range')
    body += e.array(assignments, lambda a: e.string(a[0]) + e.bytes(a[1]) + e.tags())
    body += e.tags()
    d = call(sock, 14, version, corr, body)
    d.i32()
    err = d.i16()
    ptype = d.string() if version >= 5 else None
    proto = d.string() if version >= 5 else None
    data = d.bytes()
    return [err, ptype, proto, data.hex() if data is not None else None]


def heartbeat(sock, version, group, gen, member, corr=12, instance=None):
    e = Enc(version >= 4)
    body = e.string(group) + struct.pack('>i', gen) + e.string(member)
    if version >= 3:
        body += e.string(instance)
    body += e.tags()
    d = call(sock, 12, version, corr, body)
    d.i32()
    return d.i16()


def list_groups(sock, version, states, types, corr=13):
    """ListGroups: {group: [protocol type, state (v4+), type (v5+)]}"""
    e = Enc(version >= 3)
    body = b''
    if version >= 4:
        body += e.array(states, e.string)
    if version >= 5:
        body += e.array(types, e.string)
    body += e.tags()
    d = call(sock, 16, version, corr, body)
    if version >= 1:
        d.i32()
    d.i16()
    out = {}

    def group():
        name, ptype = d.string(), d.string()
        state = d.string() if version >= 4 else None
        gtype = d.string() if version >= 5 else None
        d.tags()
        out[name] = [ptype, state, gtype]
    d.array(group)
    return out


def describe(sock, version, group, corr=14):
    """DescribeGroups of one group: [error, state, protocol type,
    protocol, [member ids]]"""
    e = Enc(version >= 5)
    body = e.array([group], e.string)
    if version >= 3:
        body += b'\x00'
    body += e.tags()
    d = call(sock, 15, version, corr, body)
    d.i32()
    rows = []

    def grp():
        err, _, state, ptype, proto = d.i16(), d.string(), d.string(), d.string(), d.string()

        def member():
            mid = d.string()
            if version >= 4:
                d.string()
            d.string(), d.string(), d.bytes(), d.bytes()
            d.tags()
            return mid
        members = d.array(member)
        if version >= 3:
            d.i32()
        d.tags()
        rows.append([err, state, ptype, proto, members])
    d.array(grp)
    return rows[0]


def delete_groups(sock, version, groups, corr=15):
    """DeleteGroups: {group: error}"""
    e = Enc(version >= 2)
    d = call(sock, 42, version, corr, e.array(groups, e.string) + e.tags())
    d.i32()
    out = {}

    def result():
        name, err = d.string(), d.i16()
        d.tags()
        out[name] = err
    d.array(result)
    return out


def offset_delete(sock, group, topic, partitions, corr=16):
    """OffsetDelete v0: [error, [[partition, error]]]"""
    e = Enc(False)
    body = e.string(group) + e.array(
        [topic], lambda t: e.string(t) + e.array(
            partitions, e.int32))
    d = call(sock, 47, 0, corr, body)
    err = d.i16()
    d.i32()
    rows = []

    def top():
        d.string()
        rows.extend(d.array(lambda: [d.i32(), d.i16()]))
    d.array(top)
    return [err, rows]


def leave(sock, version, group, members, corr=17):
    """LeaveGroup v3+ of members [(member id, instance id)]: [error,
    [[member id, instance id, error]]]"""
    e = Enc(version >= 4)
    body = e.string(group) + e.array(
        members, lambda m: e.string(m[0]) + e.string(m[1])
        + (e.string('done') if version >= 5 else b'') + e.tags()) + e.tags()
    d = call(sock, 13, version, corr, body)
    d.i32()
    err = d.i16()

    def member():
        row = [d.string(), d.string(), d.i16()]
        d.tags()
        return row
    return [err, d.array(member)]


def flexible_group(bootstrap, topic, group, other):
    """A member's life at flexible versions, and what DeleteGroups and
    OffsetDelete answer along the way; other is a group with positions
    only"""
    s = connect(bootstrap)
    out = {}
    first = join(s, 6, group, topic, '', corr=20)
    out['join_new'] = first[0]
    j = join(s, 9, group, topic, first[5], corr=21)
    out['join'] = [j[0], j[2], j[3], j[4] == j[5], len(j[6])]
    member, gen = j[5], j[1]
    a = assignment(topic, [0, 1])
    out['sync'] = sync(s, 5, group, gen, member, [(member, a)], corr=22)
    out['sync_is_assignment'] = out['sync'][3] == a.hex()
    out['heartbeat'] = heartbeat(s, 4, group, gen, member, corr=23)
    out['commit_v8'] = offset_commit(s, 8, group, topic, [(0, 2, 'flex')],
                                     generation=gen, member=member, corr=24)
    out['fetch_v8'] = offset_fetch_groups(s, [group, other, ''], topic, [0, 1], corr=25)
    out['list_v5_classic'] = list_groups(s, 5, [], ['classic'], corr=26)
    out['list_v5_consumer'] = list_groups(s, 5, [], ['consumer'], corr=27)
    out['list_v4_stable'] = list_groups(s, 4, ['stable'], [], corr=28)
    out['list_v0'] = list_groups(s, 0, [], [], corr=29)
    out['describe_v5'] = describe(s, 5, group, corr=30)
    out['offset_delete_member'] = offset_delete(s, group, topic, [0], corr=31)
    out['delete_member'] = delete_groups(s, 2, [group], corr=32)
    out['leave_v4'] = leave(s, 4, group, [(member, None)], corr=33)
    out['describe_after_leave'] = describe(s, 5, group, corr=34)
    out['offset_delete'] = offset_delete(s, group, topic, [0, 9], corr=35)
    out['fetch_after_offset_delete'] = offset_fetch(s, 7, group, topic, [0], corr=36)[0]
    out['delete'] = delete_groups(s, 2, [group, other, 'nobody-here', ''], corr=37)
    out['delete_again_v0'] = delete_groups(s, 0, [group], corr=38)
    out['offset_delete_gone'] = offset_delete(s, group, topic, [0], corr=39)
    s.close()
    return out


def static_raw(bootstrap, topic, group):
    """A static member (instance "x") joins, restarts (joins again without
    its member id) and leaves by its instance id, byte by byte"""
    s = connect(bootstrap)
    out = {}
    j = join(s, 5, group, topic, '', instance='x', corr=50)
    out['join'] = [j[0], j[6]]
    old, gen = j[5], j[1]
    a = assignment(topic, [0, 1])
    out['sync'] = sync(s, 3, group, gen, old, [(old, a)], corr=51, instance='x')[0]
    again = join(s, 9, group, topic, '', instance='x', corr=52)
    new = again[5]
    out['rejoin'] = [again[0], again[1] == gen, new != old, again[4] == new,
                     again[7], again[6] == [[new, 'x']]]
    out['heartbeat_old'] = heartbeat(s, 3, group, gen, old, corr=53, instance='x')
    out['heartbeat_new'] = heartbeat(s, 4, group, gen, new, corr=54, instance='x')
    out['commit_old_v7'] = offset_commit_static(s, group, topic, gen, old, 'x', corr=55)
    synced = sync(s, 5, group, gen, new, [], corr=56, instance='x')
    out['sync_new'] = [synced[0], synced[3] == a.hex()]
    out['join_old'] = join(s, 5, group, topic, old, instance='x', corr=57)[0]
    out['describe'] = describe(s, 5, group, corr=58)
    out['leave_wrong_member'] = leave(s, 3, group, [(old, 'x')], corr=59)
    out['leave_by_instance'] = leave(s, 3, group, [('', 'x')], corr=60)
    out['describe_after'] = describe(s, 5, group, corr=61)[1]
    s.close()
    return out


def members_left(bootstrap, topic, group):
    """Two members left in their groups when this ends, for
    topics.group_members to show: a static one (instance "held-x") in group
    GROUP-static and a dynamic one in GROUP-dynamic, each assigned both
    partitions; their session timeout (60 s) outlasts the checks.  Their
    member ids."""
    s = connect(bootstrap)
    out = {}
    j = join(s, 5, group + '-static', topic, '', instance='held-x', corr=70,
             session_ms=60000)
    out['static'] = j[5]
    sync(s, 3, group + '-static', j[1], j[5],
         [(j[5], assignment(topic, [0, 1]))], corr=71, instance='held-x')
    first = join(s, 6, group + '-dynamic', topic, '', corr=72, session_ms=60000)
    j = join(s, 6, group + '-dynamic', topic, first[5], corr=73, session_ms=60000)
    out['dynamic'] = j[5]
    sync(s, 5, group + '-dynamic', j[1], j[5],
         [(j[5], assignment(topic, [0, 1]))], corr=74)
    s.close()
    return out


def offset_commit_static(sock, group, topic, gen, member, instance, corr):
    """OffsetCommit v7 with a group instance id: [[partition, error]]"""
    e = Enc(False)
    body = (e.string(group) + struct.pack('>i', gen) + e.string(member)
            + e.string(instance)
            + e.array([topic], lambda t: e.string(t) + e.array(
                [0], lambda p: struct.pack('>iqi', p, 1, -1) + e.string(''))))
    d = call(sock, 8, 7, corr, body)
    d.i32()
    out = []

    def top():
        d.string()
        out.extend(d.array(lambda: [d.i32(), d.i16()]))
    d.array(top)
    return out


def delete_after_session(bootstrap, topic, group):
    """A static member (session timeout 6 s, the least) joins, commits and
    goes without LeaveGroup, as a closed static consumer does; DeleteGroups
    4 s after its last request, then as soon as its session timeout has
    passed (librdkafka's 0081_admin deletes so): the group tick, which
    expires silent members every 100 ms, has most times not run yet then,
    so DeleteGroups must expire the member itself."""
    s = connect(bootstrap)
    out = {}
    j = join(s, 5, group, topic, '', instance='gone', corr=90, session_ms=6000)
    member, gen = j[5], j[1]
    sync(s, 3, group, gen, member, [(member, assignment(topic, [0, 1]))],
         corr=91, instance='gone')
    out['commit'] = offset_commit_static(s, group, topic, gen, member, 'gone', corr=92)
    # the server saw the commit before this: its session is over 6 s on
    last = time.monotonic()
    s.close()
    s = connect(bootstrap)
    time.sleep(max(0.0, last + 4.0 - time.monotonic()))
    out['delete_early'] = delete_groups(s, 2, [group], corr=93)
    time.sleep(max(0.0, last + 6.0 - time.monotonic()))
    out['delete'] = delete_groups(s, 2, [group], corr=94)
    s.close()
    return out


def static_consumer(bootstrap, topic, group, instance, events):
    """A confluent-kafka consumer with group.instance.id, its rebalance
    callbacks appending to events"""
    from confluent_kafka import Consumer

    def on_assign(c, parts):
        events.append(['assign', sorted(p.partition for p in parts)])

    def on_revoke(c, parts):
        events.append(['revoke', sorted(p.partition for p in parts)])
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': group,
                  'group.instance.id': instance,
                  'session.timeout.ms': 10000,
                  'heartbeat.interval.ms': 500,
                  'enable.auto.commit': False,
                  'auto.offset.reset': 'earliest',
                  'partition.assignment.strategy': 'range'})
    c.subscribe([topic], on_assign=on_assign, on_revoke=on_revoke)
    return c


def static_child(bootstrap, topic, group, instance):
    """A static member in a process of its own, printing each rebalance
    callback as a JSON line, until it is killed"""
    events = []
    c = static_consumer(bootstrap, topic, group, instance, events)
    seen = 0
    while True:
        c.poll(0.1)
        while seen < len(events):
            print(json.dumps(events[seen]), flush=True)
            seen += 1


def static_restart(bootstrap, topic, group):
    """Two static members (group.instance.id); one is killed and its
    process started again with the same instance id within
    session.timeout.ms: the other's rebalance callbacks meanwhile, and
    the partitions before and after"""
    import os
    import signal
    import subprocess
    import threading

    b_events = []
    b = static_consumer(bootstrap, topic, group, 'instance-b', b_events)

    def child():
        p = subprocess.Popen([sys.executable, os.path.abspath(__file__), bootstrap,
                              'static_child', topic, group, 'instance-a'],
                             stdout=subprocess.PIPE, text=True)
        lines = []

        def read():
            for line in p.stdout:
                lines.append(json.loads(line))
        threading.Thread(target=read, daemon=True).start()
        return p, lines

    def poll_b(seconds, done=lambda: False):
        end = time.time() + seconds
        while time.time() < end and not done():
            b.poll(0.1)
        return done()

    def holds(events):
        return events[-1][1] if events and events[-1][0] == 'assign' else None

    a, a_events = child()
    stable = poll_b(60, lambda: holds(a_events) is not None and holds(b_events) is not None
                    and sorted(holds(a_events) + holds(b_events)) == [0, 1])
    poll_b(3)
    before = {'a': holds(a_events), 'b': holds(b_events)}
    b_seen = len(b_events)
    a.send_signal(signal.SIGKILL)
    a.wait()
    poll_b(2)
    a2, a2_events = child()
    back = poll_b(30, lambda: holds(a2_events) is not None)
    poll_b(3)
    after = {'a': holds(a2_events), 'b': holds(b_events)}
    b_after = b_events[b_seen:]
    a2.send_signal(signal.SIGKILL)
    a2.wait()
    b.close()
    return {'stable': stable, 'back': back, 'before': before, 'after': after,
            'b_events_after_restart': b_after, 'a2_events': a2_events}


COMMANDS = {f.__name__: f for f in (sarama_defaults, binary_metadata, negative_commits,
                                     flexible_group, static_raw, members_left,
                                     delete_after_session, static_child, static_restart)}

if __name__ == '__main__':
    bootstrap, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](bootstrap, *args)))
