#!/usr/bin/env python3
"""Writes tests/kafka_python/vectors.txt: request and response bodies, frames and record sets
encoded by kafka-python, with the field values and records they hold.

kafka-python's hand-written protocol classes (`kafka.protocol.old`: one class per message and
version, e.g. `ProduceRequest_v0`) encode every body; its record builders
(`LegacyRecordBatchBuilder`, `DefaultRecordBatchBuilder`) write the record sets, and its reader
(`MemoryRecords`) says what records each set holds. `tests/integration/kafka_python.rs` decodes all of it with
kwire and compares.

Usage (kafka-python pinned to KAFKA_PYTHON_VERSION):

    python3 -m venv /tmp/kp && /tmp/kp/bin/pip install kafka-python==3.0.12
    /tmp/kp/bin/python tests/kafka_python/generate.py > tests/kafka_python/vectors.txt

The output is deterministic for a given kafka-python and zlib: the values come from a counter,
and the clock is fixed while gzip writes its header.

Format (one item per line, fields separated by one space):

    set NAME HEX                      a record set (the bytes of a `records` field)
    entry MAGIC OFFSET ATTRIBUTES     a top-level entry of the preceding set (v2 batch or
                                      legacy message), as Records::batches() should see it
    batch BASE_OFFSET LAST_DELTA PRODUCER_ID PRODUCER_EPOCH BASE_SEQUENCE TXN COUNT
                                      the v2 batch header fields of the preceding entry
    rec OFFSET TIMESTAMP KEY VALUE HEADERS
                                      a record of the preceding entry (after decompression):
                                      TIMESTAMP `-` for none, KEY/VALUE hex or `-` for null,
                                      HEADERS `-` or `k=v,k=v` (hex, `v` may be `-`)
    endset
    case NAME KEY VERSION DIR HEX     a body (DIR `request` or `response`)
    frame HEX                         the size prefix and header kafka-python frames the body with
    header CORRELATION_ID CLIENT_ID   the header fields of that frame (CLIENT_ID requests only)
    f PATH VALUE                      a field of the body; PATH like `topics[1].partitions[0].name`
    len PATH N                        an array of N elements (or `null`)
    records PATH SET                  a records field holding the named set
    end

VALUE is `i:INT`, `s:TEXT` (the rest of the line, UTF-8), `null`, `bool:true|false`,
`b:HEX` (bytes) or `f:FLOAT`. Field names are kwire's (the snake_case of the schema's field
names); RENAMES maps kafka-python's names where they differ.
"""

import re
import sys
import time

import kafka
import kafka.protocol.old as old_pkg
from kafka.protocol.old import api as old_api
from kafka.protocol.old import types as T
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.legacy_records import LegacyRecordBatchBuilder
from kafka.record.memory_records import MemoryRecords

KAFKA_PYTHON_VERSION = "3.0.12"

# Where kafka-python's names or nesting differ from the schemas': per class name prefix, regex
# substitutions applied in order to each emitted path.
RENAMES = {
    # kafka-python nests count and assignment in a struct and writes the assignments as arrays
    # of arrays; the schema has Count and Assignments ([]{BrokerIds: []int32}) in the topic.
    "CreatePartitionsRequest": [
        (r"\.new_partitions\.", "."),
        (r"\.assignment(\[\d+\])", r".assignments\1.broker_ids"),
        (r"\.assignment$", ".assignments"),
    ],
    # kafka-python sends topic names; the schema has an array of {TopicId (v10+), Name}.
    "MetadataRequest": [(r"^topics(\[\d+\])$", r"topics\1.name")],
    # Metadata v8 calls both AuthorizedOperations fields the same.
    "MetadataResponse": [
        (r"^topics(\[\d+\])\.authorized_operations$", r"topics\1.topic_authorized_operations"),
        (r"^authorized_operations$", "cluster_authorized_operations"),
    ],
}

MODULES = [
    "produce", "fetch", "list_offsets", "metadata", "commit", "find_coordinator", "group",
    "api_versions", "admin", "sasl_handshake", "sasl_authenticate", "init_producer_id",
    "add_partitions_to_txn", "add_offsets_to_txn", "end_txn", "txn_offset_commit",
    "offset_for_leader_epoch",
]


class Counter:
    def __init__(self):
        self.n = 0

    def next(self):
        self.n += 1
        return self.n


# ---------------------------------------------------------------------------------------------
# Record sets


SETS = {}  # name -> (bytes, expectation lines)
SET_ORDER = []


def hexs(b):
    """Hex of bytes; `-` for null, `~` for empty."""
    if b is None:
        return "-"
    return bytes(b).hex() or "~"


def describe_set(data):
    """Expectation lines for a record set, as kafka-python's reader sees it."""
    lines = []
    recs = MemoryRecords(bytes(data))
    while recs.has_next():
        batch = recs.next_batch()
        magic = batch.magic
        if magic == 2:
            attrs = batch.attributes
            lines.append("entry 2 %d %d" % (batch.base_offset, attrs))
            lines.append("batch %d %d %d %d %d %s %d" % (
                batch.base_offset, batch.last_offset_delta, batch.producer_id,
                batch.producer_epoch, batch.base_sequence,
                "true" if batch.is_transactional else "false", batch.records_count))
        else:
            lines.append("entry %d %d %d" % (magic, batch.base_offset, batch._attributes))
        for r in batch:
            ts = "-" if r.timestamp is None else str(r.timestamp)
            if magic == 2 and r.headers:
                hs = ",".join("%s=%s" % (k.encode().hex(), hexs(v)) for k, v in r.headers)
            else:
                hs = "-"
            lines.append("rec %d %s %s %s %s" % (r.offset, ts, hexs(r.key), hexs(r.value), hs))
    return lines


def add_set(name, data):
    data = bytes(data)
    SETS[name] = (data, describe_set(data))
    SET_ORDER.append(name)
    return data


def legacy_set(name, magic, compression, records, wrapper_offset=None):
    """A magic 0 or 1 message set of (offset, timestamp, key, value), optionally a gzip wrapper.
    `wrapper_offset` rewrites the wrapper's offset as a broker does (the offset is outside the
    CRC), so the inner offsets become absolute."""
    b = LegacyRecordBatchBuilder(magic=magic, compression_type=compression, batch_size=1 << 20)
    for off, ts, key, value in records:
        assert b.append(off, timestamp=ts, key=key, value=value) is not None
    data = bytearray(b.build())
    if wrapper_offset is not None:
        data[0:8] = wrapper_offset.to_bytes(8, "big", signed=True)
    return add_set(name, data)


def v2_set(name, batches):
    out = bytearray()
    for spec in batches:
        b = DefaultRecordBatchBuilder(
            magic=2, compression_type=spec.get("compression", 0),
            is_transactional=spec.get("txn", False), producer_id=spec.get("pid", -1),
            producer_epoch=spec.get("epoch", -1), base_sequence=spec.get("seq", -1),
            batch_size=1 << 20)
        for off, ts, key, value, headers in spec["records"]:
            assert b.append(off, timestamp=ts, key=key, value=value, headers=headers) is not None
        data = bytearray(b.build())
        base = spec.get("base_offset")
        if base is not None:
            data[0:8] = base.to_bytes(8, "big", signed=True)
        out += data
    return add_set(name, out)


def build_sets():
    ts0 = 1_700_000_000_123
    legacy_set("m0_plain", 0, 0, [
        (0, None, b"k0", b"value zero"),
        (1, None, None, b"value one, no key"),
        (2, None, b"k2", None),
    ])
    legacy_set("m0_gzip", 0, LegacyRecordBatchBuilder.CODEC_GZIP, [
        (0, None, b"gk0", b"gzipped zero" * 3),
        (1, None, b"gk1", b"gzipped one"),
    ])
    legacy_set("m1_plain", 1, 0, [
        (0, ts0, b"k0", b"magic one zero"),
        (1, ts0 + 5, None, b"magic one, no key"),
        (2, ts0 - 7, b"k2", None),
    ])
    legacy_set("m1_gzip", 1, LegacyRecordBatchBuilder.CODEC_GZIP, [
        (0, ts0, b"gk0", b"gzipped magic one " * 4),
        (1, ts0 + 1, None, b"gz no key"),
        (2, ts0 + 2, b"gk2", b""),
    ])
    # As a broker stores it: the wrapper carries the absolute offset of the last inner message.
    legacy_set("m1_gzip_fetched", 1, LegacyRecordBatchBuilder.CODEC_GZIP, [
        (0, ts0, b"fk0", b"fetched zero"),
        (1, ts0 + 10, b"fk1", b"fetched one"),
        (2, ts0 + 20, b"fk2", b"fetched two"),
    ], wrapper_offset=5002)
    v2_set("v2_plain", [{
        "records": [
            (0, ts0, b"key-0", b"value-0", []),
            (1, ts0 + 3, None, b"value-1", [("h1", b"hv1"), ("h2", None)]),
            (2, ts0 - 2, b"key-2", None, [("\u00e9", b"")]),
        ],
    }])
    v2_set("v2_idempotent_gzip", [{
        "compression": DefaultRecordBatchBuilder.CODEC_GZIP,
        "pid": 123456789012, "epoch": 7, "seq": 42,
        "records": [
            (0, ts0, b"gz-key", b"gz value " * 5, [("trace", b"\x00\x01\x02")]),
            (1, ts0 + 1, None, b"gz value two", []),
        ],
    }])
    v2_set("v2_two_batches", [
        {"base_offset": 900, "records": [(0, ts0, b"a", b"first batch", [])]},
        {"base_offset": 901, "txn": True, "pid": 77, "epoch": 1, "seq": 0,
         "records": [(0, ts0 + 9, b"b", b"second batch, transactional", []),
                     (1, ts0 + 10, b"c", b"and another", [])]},
    ])


def records_for(class_name, version, k):
    """The record set a records field of (class, version) gets; k picks among the sets."""
    if class_name.startswith("Produce"):
        sets = (["m0_plain", "m0_gzip"] if version < 2 else
                ["m1_plain", "m1_gzip"] if version == 2 else
                ["v2_plain", "v2_idempotent_gzip"])
    else:
        sets = (["m0_plain", "m0_gzip"] if version < 2 else
                ["m1_plain", "m1_gzip_fetched"] if version < 4 else
                ["v2_two_batches", "v2_idempotent_gzip"])
    return sets[k % len(sets)]


# ---------------------------------------------------------------------------------------------
# Values


class Builder:
    """Fills a kafka-python schema with distinctive values and records what it put where."""

    def __init__(self, class_name, version):
        self.class_name = class_name
        self.version = version
        self.c = Counter()
        self.records_k = 0
        self.lines = []

    def renamed_lines(self):
        rules = [r for prefix, rs in RENAMES.items() if self.class_name.startswith(prefix)
                 for r in rs]
        out = []
        for line in self.lines:
            kind, path, rest = line.split(" ", 2)
            for pattern, repl in rules:
                path = re.sub(pattern, repl, path)
            out.append("%s %s %s" % (kind, path, rest))
        return out

    def schema(self, schema, path):
        values = []
        for name, field in zip(schema.names, schema.fields):
            if field is T.TaggedFields:
                values.append(self.tags(path))
                continue
            p = (path + "." if path else "") + name
            values.append(self.value(name, field, p))
        return tuple(values)

    def tags(self, path):
        # An unknown tag (kwire keeps it as read), on the top level only.
        if path:
            self.lines.append("len %s.unknown_tagged_fields 0" % path)
            return {}
        n = self.c.next()
        data = bytes([n & 0xFF, 0xAB])
        self.lines.append("len unknown_tagged_fields 1")
        self.lines.append("f unknown_tagged_fields[0].tag i:%d" % (900 + n))
        self.lines.append("f unknown_tagged_fields[0].data b:%s" % data.hex())
        return {900 + n: data}

    def value(self, name, field, path):
        n = self.c.next()
        if isinstance(field, T.Array):
            count = 2 if isinstance(field.array_of, T.Schema) else 3
            self.lines.append("len %s %d" % (path, count))
            items = []
            for i in range(count):
                p = "%s[%d]" % (path, i)
                if isinstance(field.array_of, T.Schema):
                    items.append(self.schema(field.array_of, p))
                else:
                    items.append(self.value(name, field.array_of, p))
            return items
        if isinstance(field, T.Schema):
            return self.schema(field, path)
        if field is T.Int8:
            v = n % 100 + 1
        elif field is T.Int16:
            v = 1000 + n
        elif field is T.Int32:
            v = 100_000 + 7 * n
        elif field is T.Int64:
            v = 0x0123_4567_0000 + 13 * n
        elif field is T.Boolean:
            v = n % 2 == 1
            self.lines.append("f %s bool:%s" % (path, "true" if v else "false"))
            return v
        elif field is T.Float64:
            v = n + 0.5
            self.lines.append("f %s f:%r" % (path, v))
            return v
        elif field is T.BitField:
            v = {0, n % 8 + 2}
            self.lines.append("f %s i:%d" % (path, T.BitField.to_32_bit_field(v)))
            return v
        elif isinstance(field, T.String):
            v = "%s-%d%s" % (name, n, " \u00fc" if n % 5 == 0 else "")
            self.lines.append("f %s s:%s" % (path, v))
            return v
        elif field is T.Bytes or field is T.CompactBytes:
            if name in ("records", "record_set", "message_set"):
                set_name = records_for(self.class_name, self.version, self.records_k)
                self.records_k += 1
                self.lines.append("records %s %s" % (path, set_name))
                return SETS[set_name][0]
            v = bytes([n & 0xFF, 0x00, 0xFF, (n * 3) & 0xFF])
            self.lines.append("f %s b:%s" % (path, v.hex()))
            return v
        else:
            raise TypeError("no value for %r at %s" % (field, path))
        self.lines.append("f %s i:%d" % (path, v))
        return v


def classes():
    import importlib
    out = []
    for mod_name in MODULES:
        mod = importlib.import_module("kafka.protocol.old." + mod_name)
        for name in sorted(vars(mod)):
            cls = getattr(mod, name)
            if not (isinstance(cls, type) and issubclass(cls, old_api.RequestResponse)):
                continue
            if "_v" not in name or cls.__module__ != mod.__name__:
                continue
            out.append(cls)
    out.sort(key=lambda c: (c.API_KEY, 0 if c.is_request() else 1, c.API_VERSION))
    return out


def emit_case(out, cls, name, make=None):
    b = Builder(cls.__name__, cls.API_VERSION)
    values = b.schema(cls.SCHEMA, "")
    if make is not None:
        values = make(values, b)
    obj = cls(*values)
    body = obj.encode()
    direction = "request" if cls.is_request() else "response"
    out.append("case %s %d %d %s %s" % (name, cls.API_KEY, cls.API_VERSION, direction, body.hex()))
    correlation_id = 0x10000 + cls.API_KEY * 100 + cls.API_VERSION
    if cls.is_request():
        obj.with_header(correlation_id=correlation_id, client_id="kp-%s" % name)
    else:
        obj.with_header(correlation_id=correlation_id)
    frame = obj.encode(header=True, framed=True)
    assert frame.endswith(body)
    out.append("frame %s" % frame[: len(frame) - len(body)].hex())
    if cls.is_request():
        out.append("header %d kp-%s" % (correlation_id, name))
    else:
        out.append("header %d" % correlation_id)
    out.extend(b.renamed_lines())
    out.append("end")


def main():
    real_time = time.time
    time.time = lambda: 1_700_000_000.0  # gzip header mtime
    try:
        build_sets()
    finally:
        time.time = real_time
    assert kafka.__version__ == KAFKA_PYTHON_VERSION, kafka.__version__

    out = [
        "# Generated by tests/kafka_python/generate.py with kafka-python %s (Python %d.%d)."
        % (kafka.__version__, sys.version_info[0], sys.version_info[1]),
        "# Do not edit: regenerate with that script. Format: see the script's docstring.",
    ]
    for name in SET_ORDER:
        data, lines = SETS[name]
        out.append("set %s %s" % (name, data.hex()))
        out.extend(lines)
        out.append("endset")
    for cls in classes():
        emit_case(out, cls, cls.__name__)
    for name, cls, make in special_cases():
        emit_case(out, cls, name, make)
    sys.stdout.write("\n".join(out) + "\n")


def special_cases():
    """Cases with null values where the protocol allows them."""
    from kafka.protocol.old.metadata import MetadataRequest_v1, MetadataRequest_v4
    from kafka.protocol.old.produce import ProduceRequest_v0
    from kafka.protocol.old.fetch import FetchResponse_v0

    def null_topics(values, b):
        b.lines = [l for l in b.lines if not l.startswith(("len topics", "f topics"))]
        b.lines.insert(0, "len topics null")
        return (None,) + tuple(values[1:])

    def null_records(values, b):
        # The first partition of the first topic sends null records.
        path = "topic_data[0].partition_data[0].records"
        b.lines = [l for l in b.lines if not l.startswith("records %s " % path)]
        b.lines.append("f %s null" % path)
        acks, timeout, topics = values
        (tname, parts) = topics[0]
        parts = [(parts[0][0], None)] + list(parts[1:])
        return (acks, timeout, [(tname, parts)] + list(topics[1:]))

    def null_fetch_records(values, b):
        path = "responses[1].partitions[1].records"
        b.lines = [l for l in b.lines if not l.startswith("records %s " % path)]
        b.lines.append("f %s null" % path)
        (topics,) = values
        tname, parts = topics[1]
        p = parts[1]
        parts = [parts[0], (p[0], p[1], p[2], None)]
        return ([topics[0], (tname, parts)],)

    return [
        ("MetadataRequest_v1_null_topics", MetadataRequest_v1, null_topics),
        ("MetadataRequest_v4_null_topics", MetadataRequest_v4, null_topics),
        ("ProduceRequest_v0_null_records", ProduceRequest_v0, null_records),
        ("FetchResponse_v0_null_records", FetchResponse_v0, null_fetch_records),
    ]


if __name__ == "__main__":
    main()
