"""Requests whose work grows with what a client sends, for
test/t/043_kafka_work_bounds.pl: each must cost in proportion to its size
(not its square), stop at the limits before the work, and leave the
listener serving others meanwhile.

    work_bounds.py HOST:PORT COMMAND [ARGS...]

Run with Debian's /usr/bin/python3 (kafka-python 2.0.2 builds the record
batches).  Each command prints one JSON document.
"""
import json
import socket
import struct
import sys
import threading
import time


def connect(addr, timeout=600):
    host, port = addr.rsplit(':', 1)
    return socket.create_connection((host, int(port)), timeout=timeout)


def read_exactly(sock, n):
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError('closed')
        data += chunk
    return data


def request(sock, key, version, corr, body):
    payload = struct.pack('>hhih', key, version, corr, 11) + b'work-bounds' + body
    sock.sendall(struct.pack('>i', len(payload)) + payload)
    n = struct.unpack('>i', read_exactly(sock, 4))[0]
    return read_exactly(sock, n)[4:]


def string(s):
    b = s.encode()
    return struct.pack('>h', len(b)) + b


class Bystander(threading.Thread):
    """Another client's ApiVersions, every 100 ms while the request runs:
    the longest it waited for an answer"""

    def __init__(self, addr):
        super().__init__(daemon=True)
        self.addr = addr
        self.stop = threading.Event()
        self.longest = 0.0
        self.answers = 0

    def run(self):
        s = connect(self.addr)
        corr = 0
        while not self.stop.is_set():
            corr += 1
            t0 = time.time()
            request(s, 18, 0, corr, b'')
            self.longest = max(self.longest, time.time() - t0)
            self.answers += 1
            time.sleep(0.1)
        s.close()


def timed(addr, fn):
    """fn(socket) with a bystander served meanwhile: its result, the
    seconds it took and the bystander's longest wait"""
    b = Bystander(addr)
    s = connect(addr)
    b.start()
    time.sleep(0.3)
    t0 = time.time()
    result = fn(s)
    seconds = time.time() - t0
    b.stop.set()
    b.join()
    s.close()
    return {'result': result, 'seconds': round(seconds, 3),
            'bystander_longest': round(b.longest, 3),
            'bystander_answers': b.answers}


def headers(addr, topic, count, repeat):
    """One Produce of one record with count headers, each name repeat
    times (names 000000, 000001, ...: of one length, so that comparing two
    compares their bytes; null values): the partition's error"""
    from kafka.record.default_records import DefaultRecordBatchBuilder
    count, repeat = int(count), int(repeat)
    hs = [('%06d' % (i // repeat), None) for i in range(count)]
    b = DefaultRecordBatchBuilder(2, 0, False, -1, -1, -1, 1 << 30)
    b.append(0, timestamp=None, key=b'headers', value=b'v', headers=hs)
    records = bytes(b.build())
    name = topic.encode()
    req = (struct.pack('>hhi', -1, -1, 60000) + struct.pack('>i', 1)
           + struct.pack('>h', len(name)) + name + struct.pack('>i', 1)
           + struct.pack('>i', 0) + struct.pack('>i', len(records)) + records)

    def produce(s):
        body = request(s, 0, 3, 1, req)
        off = 4 + 2 + len(name) + 4
        return struct.unpack('>ih', body[off:off + 6])[1]

    out = timed(addr, produce)
    out['request_bytes'] = len(req)
    return out


def offset_commit(addr, group, topic, count):
    """One OffsetCommit v2 (no member) of partition 0 of topic, count times
    over: the first partition's error and how many were answered"""
    count = int(count)
    name = topic.encode()
    part = struct.pack('>iq', 0, 0) + string('')
    req = (string(group) + struct.pack('>i', -1) + string('')
           + struct.pack('>q', -1) + struct.pack('>i', 1)
           + struct.pack('>h', len(name)) + name + struct.pack('>i', count)
           + part * count)

    def commit(s):
        body = request(s, 8, 2, 1, req)
        off = 4 + 2 + len(name)
        n = struct.unpack('>i', body[off:off + 4])[0]
        return [struct.unpack('>h', body[off + 8:off + 10])[0], n]

    out = timed(addr, commit)
    out['request_bytes'] = len(req)
    return out


def create_topics(addr, partitions, *names):
    """One CreateTopics v1 of the topics named, each of partitions
    partitions: [error, message] of each"""
    body = struct.pack('>i', len(names))
    for n in names:
        body += (string(n) + struct.pack('>ih', int(partitions), -1)
                 + struct.pack('>i', 0) + struct.pack('>i', 0))
    body += struct.pack('>i', 60000) + b'\x00'
    s = connect(addr)
    resp = request(s, 19, 1, 1, body)
    s.close()
    pos = 4
    out = []
    for _ in range(struct.unpack('>i', resp[:4])[0]):
        n = struct.unpack('>h', resp[pos:pos + 2])[0]
        pos += 2 + n
        error, mlen = struct.unpack('>hh', resp[pos:pos + 4])
        pos += 4
        message = None
        if mlen >= 0:
            message = resp[pos:pos + mlen].decode()
            pos += mlen
        out.append([error, message])
    return out


def sync_assignments(addr, group, count):
    """A consumer joins group alone, and as its leader sends a SyncGroup
    naming itself count times: the SyncGroup's error"""
    from kafka.protocol.group import JoinGroupRequest
    from kafka.coordinator.protocol import ConsumerProtocolMemberMetadata
    count = int(count)
    # kept in a variable: encode() holds its object only weakly
    subscription = ConsumerProtocolMemberMetadata(0, [], b'')
    metadata = subscription.encode()
    s = connect(addr)
    r = JoinGroupRequest[2](group, 30000, 30000, '', 'consumer',
                            [('range', metadata)])
    body = request(s, 11, 2, 1, r.encode())
    j = r.RESPONSE_TYPE.decode(__import__('io').BytesIO(body))
    assert j.error_code == 0, j
    member = j.member_id.encode()
    one = struct.pack('>h', len(member)) + member + struct.pack('>i', 0)
    req = (string(group) + struct.pack('>i', j.generation_id)
           + struct.pack('>h', len(member)) + member
           + struct.pack('>i', count) + one * count)

    def sync(sock):
        body = request(sock, 14, 1, 2, req)
        return struct.unpack('>h', body[4:6])[0]

    b = Bystander(addr)
    b.start()
    time.sleep(0.3)
    t0 = time.time()
    error = sync(s)
    seconds = time.time() - t0
    b.stop.set()
    b.join()
    s.close()
    return {'result': error, 'seconds': round(seconds, 3),
            'bystander_longest': round(b.longest, 3),
            'request_bytes': len(req)}


COMMANDS = {f.__name__: f for f in (headers, offset_commit, create_topics,
                                    sync_assignments)}

if __name__ == '__main__':
    addr, command, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    print(json.dumps(COMMANDS[command](addr, *args)))
