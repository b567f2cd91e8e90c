"""DescribeTransactions (key 65, v0) and ListTransactions (key 66, v0-1)
written byte by byte, for the TAP tests: no client on this machine sends
them (kafka-python 2.0.2 and confluent-kafka 1.7.0 have no such admin
call; Kafka's kafka-transactions.sh is Java).

Run with Debian's /usr/bin/python3:

    transactions_admin.py BOOTSTRAP [--as USER PASSWORD] describe ID...
    transactions_admin.py BOOTSTRAP [--as USER PASSWORD] list [--version V]
        [--state STATE]... [--producer-id N]... [--duration MS]

--as authenticates the connection first with SASL PLAIN (SaslHandshake v1,
SaslAuthenticate v0); without it the listener's trust role answers.  Each
command prints one JSON document, what the server answered:

    describe: {"throttle_time_ms": 0, "transactions": [{"error": 0,
               "transactional_id": "t1", "state": "Ongoing",
               "timeout_ms": 60000, "start_time_ms": 1700000000000,
               "producer_id": 4097, "producer_epoch": 0,
               "topics": {"orders": [0, 1]}}, ...]}
    list:     {"throttle_time_ms": 0, "error": 0,
               "unknown_state_filters": ["Bogus"],
               "transactions": [{"transactional_id": "t1",
                                 "producer_id": 4097, "state": "Ongoing"}]}

(Kafka error codes: 0 none, 16 NOT_COORDINATOR, 42 INVALID_REQUEST, 53
TRANSACTIONAL_ID_AUTHORIZATION_FAILED, 105 TRANSACTIONAL_ID_NOT_FOUND.)
A connection the server closes, or an answer that does not decode to its
last byte, is an exception (exit status 1).  From Perl:

    my $d = kafka_script('transactions_admin.py', $bootstrap,
        '--as', 'alice', 'secret', 'describe', 't1', 't2');
    is($d->{transactions}[0]{error}, 0, ...);

Both APIs are flexible in every version: request header v2, compact
strings and arrays, tagged fields; the response header v1.
"""
import argparse
import json
import struct
import sys

import raw_wire
from raw_wire import Dec, Enc, connect

CLIENT_ID = 'transactions-admin-test'


def call(sock, key, version, body):
    """A flexible request; its response body as a Dec (after the response
    header's tagged fields)"""
    d = Dec(raw_wire.call(sock, key, version, 3, body, CLIENT_ID, True), True)
    d.tags()
    return d


def describe_request(ids):
    e = Enc(True)
    return e.array(ids, e.string) + e.tags()


def describe_response(d):
    def topic():
        t = (d.string(), d.array(d.i32))
        d.tags()
        return t

    def state():
        s = {'error': d.i16(), 'transactional_id': d.string(),
             'state': d.string(), 'timeout_ms': d.i32(),
             'start_time_ms': d.i64(), 'producer_id': d.i64(),
             'producer_epoch': d.i16()}
        s['topics'] = dict(d.array(topic))
        d.tags()
        return s
    out = {'throttle_time_ms': d.i32(), 'transactions': d.array(state)}
    d.tags()
    d.done()
    return out


def list_request(version, states, producer_ids, duration):
    e = Enc(True)
    out = (e.array(states, e.string)
           + e.array(producer_ids, lambda p: struct.pack('>q', p)))
    if version >= 1:
        out += struct.pack('>q', duration)
    return out + e.tags()


def list_response(d):
    def state():
        s = {'transactional_id': d.string(), 'producer_id': d.i64(),
             'state': d.string()}
        d.tags()
        return s
    out = {'throttle_time_ms': d.i32(), 'error': d.i16(),
           'unknown_state_filters': d.array(d.string),
           'transactions': d.array(state)}
    d.tags()
    d.done()
    return out


def describe(sock, ids):
    """DescribeTransactions v0 of ids: the decoded answer"""
    return describe_response(call(sock, 65, 0, describe_request(ids)))


def list_transactions(sock, version=1, states=(), producer_ids=(), duration=-1):
    """ListTransactions at version (0 or 1; DurationFilter only from 1)"""
    return list_response(call(sock, 66, version,
                              list_request(version, list(states),
                                           list(producer_ids), duration)))


def main(argv):
    p = argparse.ArgumentParser(description='DescribeTransactions and '
                                'ListTransactions by raw frames')
    p.add_argument('bootstrap')
    p.add_argument('--as', dest='auth', nargs=2, metavar=('USER', 'PASSWORD'))
    sub = p.add_subparsers(dest='command', required=True)
    d = sub.add_parser('describe')
    d.add_argument('ids', nargs='*')
    lp = sub.add_parser('list')
    lp.add_argument('--version', type=int, default=1, choices=[0, 1])
    lp.add_argument('--state', action='append', default=[])
    lp.add_argument('--producer-id', type=int, action='append', default=[])
    lp.add_argument('--duration', type=int, default=-1)
    args = p.parse_args(argv)

    sock = connect(args.bootstrap)
    if args.auth:
        raw_wire.sasl_plain(sock, args.auth[0], args.auth[1], CLIENT_ID)
    if args.command == 'describe':
        out = describe(sock, args.ids)
    else:
        out = list_transactions(sock, args.version, args.state,
                                args.producer_id, args.duration)
    sock.close()
    print(json.dumps(out))


if __name__ == '__main__':
    main(sys.argv[1:])
