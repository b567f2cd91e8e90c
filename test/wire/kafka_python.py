#!/usr/bin/python3
# Cross-checks of src/wire/record_batch.c against kafka-python's own
# RecordBatch v2 code (Debian's python3-kafka, with python3-snappy,
# python3-lz4 and python3-zstandard for the codecs).
#
#   kafka_python.py generate VECTORS_DIR CORPUS_DIR
#       writes batches built by kafka-python's DefaultRecordBatchBuilder as
#       test vectors (VECTORS_DIR/*.vec, which record_batch_test decodes)
#       and as the fuzzer's seed corpus (CORPUS_DIR/*, raw bytes); besides,
#       its records recompressed in the framings other writers use (zlib,
#       gzip members, raw snappy, several lz4 or zstd frames).  The gzip
#       ones differ from run to run: gzip stamps the time.
#   kafka_python.py check FILE.vec...
#       decodes the batches of each file (written by record_batch_test from
#       our encoder) with kafka-python's DefaultRecordBatch, checks their
#       CRC and compares the records with those the file expects
#
# A .vec file is text, one item a line:
#   batch HEX                    a record batch (those of a file go back to back)
#   record OFFSET TIMESTAMP KEY VALUE [HKEY HVALUE]...
#                                the next record of the last batch, with its
#                                absolute offset and timestamp
#   last OFFSET                  the last batch's baseOffset + lastOffsetDelta
#   attributes N                 the last batch's attributes
# Byte strings are written as '-' (null), '.' (empty), HEX, or HEX*N (HEX
# repeated N times).  '#' starts a comment line.
#
# Run with Debian's /usr/bin/python3, which has those packages (check needs
# python3-kafka only).

import gzip
import os
import struct
import sys
import zlib

from kafka.record.default_records import (DefaultRecordBatch,
                                          DefaultRecordBatchBuilder)
from kafka.record.util import calc_crc32c

NONE, GZIP, SNAPPY, LZ4, ZSTD = 0, 1, 2, 3, 4
LOG_APPEND_TIME = 0x08


def bytes_field(b):
    if b is None:
        return '-'
    if len(b) == 0:
        return '.'
    # a run of one repeated chunk is written short
    for size in range(1, 17):
        if len(b) >= 64 and len(b) % size == 0 and b == b[:size] * (len(b) // size):
            return '%s*%d' % (b[:size].hex(), len(b) // size)
    return b.hex()


def parse_bytes(s):
    if s == '-':
        return None
    if s == '.':
        return b''
    if '*' in s:
        chunk, n = s.split('*')
        return bytes.fromhex(chunk) * int(n)
    return bytes.fromhex(s)


def header_key(k):
    return k if isinstance(k, bytes) else k.encode()


def write_vec(path, comment, batches):
    """batches: [(bytes, [(offset, timestamp, key, value, headers)], attributes)]"""
    with open(path, 'w') as f:
        f.write('# %s\n' % comment)
        for data, records, attributes in batches:
            f.write('batch %s\n' % bytes(data).hex())
            f.write('attributes %d\n' % attributes)
            for offset, ts, key, value, headers in records:
                fields = ['record', str(offset), str(ts), bytes_field(key), bytes_field(value)]
                for hk, hv in headers:
                    fields += [bytes_field(header_key(hk)), bytes_field(hv)]
                f.write(' '.join(fields) + '\n')


def build(records, compression=NONE, transactional=False, producer_id=-1,
          producer_epoch=-1, base_sequence=-1):
    b = DefaultRecordBatchBuilder(magic=2, compression_type=compression,
                                  is_transactional=transactional,
                                  producer_id=producer_id,
                                  producer_epoch=producer_epoch,
                                  base_sequence=base_sequence,
                                  batch_size=1 << 30)
    for offset, ts, key, value, headers in records:
        assert b.append(offset, ts, key, value, headers) is not None
    data = bytes(b.build())
    attributes = struct.unpack_from('>h', data, 21)[0]
    assert attributes & 7 == compression, 'kafka-python did not compress'
    return data, attributes


def recompress(data, compression, blob):
    """the batch data with its records replaced by blob, compressed as codec"""
    header = bytearray(data[:61])
    struct.pack_into('>i', header, 8, 61 + len(blob) - 12)
    attributes = (struct.unpack_from('>h', header, 21)[0] & ~7) | compression
    struct.pack_into('>h', header, 21, attributes)
    out = bytes(header) + blob
    crc = calc_crc32c(out[21:])
    return out[:17] + struct.pack('>I', crc) + out[21:], attributes


def varied_records():
    ts = 1700000000000
    text = b'the quick brown fox jumps over the lazy dog; ' * 6
    return [
        (0, ts, None, None, []),
        (1, ts + 1, b'', b'', []),
        (2, ts - 5, bytes(range(256)), bytes(range(255, -1, -1)), []),
        (3, ts + 86400000, b'key', text, [('h', None)]),
        (4, ts, b'k\x00\xff', text, [('dup', b'1'), ('dup', b'2'), ('', b'')]),
        (5, ts + 2 ** 40, None, b'\x00' * 300, [('null', None), ('empty', b''), ('bin', b'\x80\xff')]),
        (6, 0, b'k' * 200, None, [('h%d' % i, b'v' * i) for i in range(70)]),
    ]


def many_records(n):
    ts = 1600000000000
    return [(i, ts + i * 37, b'key-%d' % i if i % 3 else None,
             b'value %d ' % i * (1 + i % 5), [('i', b'%d' % i)] if i % 2 else [])
            for i in range(n)]


def generate(vectors, corpus):
    # the codecs' packages, needed to write vectors only
    import lz4.frame
    import snappy
    import zstandard

    os.makedirs(vectors, exist_ok=True)
    os.makedirs(corpus, exist_ok=True)
    made = {}

    def add(name, comment, batches):
        write_vec(os.path.join(vectors, name + '.vec'), comment, batches)
        made[name] = b''.join(bytes(b[0]) for b in batches)

    varied = varied_records()
    many = many_records(120)
    names = {NONE: 'none', GZIP: 'gzip', SNAPPY: 'snappy', LZ4: 'lz4', ZSTD: 'zstd'}
    for c, name in names.items():
        data, attrs = build(varied, c)
        add('kafka_python_varied_' + name,
            'kafka-python: varied records, codec %s' % name, [(data, varied, attrs)])
        data, attrs = build(many, c)
        add('kafka_python_many_' + name,
            'kafka-python: 120 records, codec %s' % name, [(data, many, attrs)])

    # snappy in xerial framing over several 32 kB blocks
    big = [(i, 1700000000000, b'big-%d' % i, (b'%d,' % i) * 2000, []) for i in range(20)]
    data, attrs = build(big, SNAPPY)
    add('kafka_python_snappy_xerial_blocks',
        'kafka-python: snappy in xerial framing, several blocks', [(data, big, attrs)])

    # idempotent and transactional producers
    data, attrs = build(varied[:3], NONE, producer_id=4242, producer_epoch=3, base_sequence=17)
    add('kafka_python_idempotent', 'kafka-python: an idempotent producer\'s batch',
        [(data, varied[:3], attrs)])
    data, attrs = build(many[:20], GZIP, transactional=True, producer_id=4243,
                        producer_epoch=1, base_sequence=0)
    add('kafka_python_transactional', 'kafka-python: a transactional batch, gzip',
        [(data, many[:20], attrs)])

    # two batches back to back, the second one compressed
    d1, a1 = build(varied[:2], NONE)
    d2, a2 = build(many[:40], ZSTD)
    add('kafka_python_two_batches', 'kafka-python: two batches back to back',
        [(d1, varied[:2], a1), (d2, many[:40], a2)])

    # the other framings other writers use, from kafka-python's records
    plain, _ = build(many, NONE)
    records = plain[61:]
    zs = zlib.compressobj(9, zlib.DEFLATED, 15)
    d, a = recompress(plain, GZIP, zs.compress(records) + zs.flush())
    add('zlib_stream', 'records as a zlib stream (not gzip)', [(d, many, a)])
    half = len(records) // 2
    d, a = recompress(plain, GZIP, gzip.compress(records[:half], mtime=0) + gzip.compress(records[half:], mtime=0))
    add('gzip_two_members', 'records as two gzip members back to back', [(d, many, a)])
    d, a = recompress(plain, SNAPPY, snappy.compress(records))
    add('snappy_raw', 'records as one raw snappy block (as librdkafka writes)', [(d, many, a)])
    d, a = recompress(plain, LZ4, lz4.frame.compress(records[:half], content_checksum=True,
                                                     block_checksum=True, store_size=True)
                      + lz4.frame.compress(records[half:], block_linked=False))
    add('lz4_two_frames', 'records as two LZ4 frames, the first with checksums and size',
        [(d, many, a)])
    cctx = zstandard.ZstdCompressor(level=3, write_content_size=False)
    stream = cctx.compressobj()
    d, a = recompress(plain, ZSTD, stream.compress(records) + stream.flush())
    add('zstd_stream', 'records as a zstd frame without a content size', [(d, many, a)])
    d, a = recompress(plain, ZSTD, zstandard.ZstdCompressor().compress(records[:half])
                      + zstandard.ZstdCompressor().compress(records[half:]))
    add('zstd_two_frames', 'records as two zstd frames', [(d, many, a)])

    for name, data in sorted(made.items()):
        with open(os.path.join(corpus, name), 'wb') as f:
            f.write(data)
    print('kafka_python.py: %d vectors written' % len(made))


def read_vec(path):
    """the batches of a .vec file: dicts of data, records, last, attributes"""
    batches = []
    with open(path) as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith('#'):
                continue
            if fields[0] == 'batch':
                batches.append({'data': bytes.fromhex(fields[1]), 'records': []})
            elif fields[0] == 'record':
                hs = [(parse_bytes(fields[i]).decode('utf-8', 'surrogateescape'),
                       parse_bytes(fields[i + 1])) for i in range(5, len(fields), 2)]
                batches[-1]['records'].append(
                    (int(fields[1]), int(fields[2]), parse_bytes(fields[3]),
                     parse_bytes(fields[4]), hs))
            elif fields[0] == 'last':
                batches[-1]['last'] = int(fields[1])
            elif fields[0] == 'attributes':
                batches[-1]['attributes'] = int(fields[1])
    return batches


def check(paths):
    failed = 0
    checked = 0
    for path in paths:
        batches = read_vec(path)
        for i, b in enumerate(batches):
            what = '%s, batch %d' % (path, i)
            try:
                batch = DefaultRecordBatch(b['data'])
                problems = []
                if not batch.validate_crc():
                    problems.append('CRC does not match')
                if batch.magic != 2:
                    problems.append('magic %d' % batch.magic)
                length = struct.unpack_from('>i', b['data'], 8)[0]
                if length != len(b['data']) - 12:
                    problems.append('batchLength %d for %d bytes' % (length, len(b['data'])))
                if 'attributes' in b and batch.attributes != b['attributes']:
                    problems.append('attributes %d, not %d' % (batch.attributes, b['attributes']))
                if 'last' in b and batch.base_offset + batch.last_offset_delta != b['last']:
                    problems.append('last offset %d, not %d' %
                                    (batch.base_offset + batch.last_offset_delta, b['last']))
                got = [(r.offset, r.timestamp, r.key, r.value, r.headers) for r in batch]
                if got != b['records']:
                    problems.append('records differ:\n  got      %r\n  expected %r' %
                                    (got, b['records']))
            except Exception as e:      # a decoding failure is a failed check
                problems = ['kafka-python cannot decode it: %r' % e]
            checked += 1
            if problems:
                failed += 1
                print('not ok: %s: %s' % (what, '; '.join(problems)))
    print('kafka_python: %d passed, %d failed' % (checked - failed, failed))
    return failed == 0


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == 'generate':
        generate(sys.argv[2], sys.argv[3])
    elif len(sys.argv) >= 3 and sys.argv[1] == 'check':
        sys.exit(0 if check(sys.argv[2:]) else 1)
    else:
        sys.exit('usage: kafka_python.py generate VECTORS_DIR CORPUS_DIR | check FILE.vec...')
