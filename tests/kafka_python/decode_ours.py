#!/usr/bin/env python3
"""Writes tests/kafka_python/flexible.txt: kwire's encodings of every flexible version that
kafka-python's JSON-schema protocol classes know, as kafka-python decodes them.

The input is what `cargo run --example flexible_instances` prints: a random instance of every
flexible version of every request and response, encoded by kwire's typed encoder, a line each
(`case NAME KEY VERSION DIR HEX`). Each body is decoded by kafka-python (`kafka.protocol`,
not `kafka.protocol.old`), which must read all of it; the header of its frame is written by
kafka-python, and every field it decoded is listed (kafka-python keeps no unknown tagged
fields, so those are not).
`tests/integration/kafka_python.rs` decodes each body with kwire, compares every field with kafka-python's
value, re-encodes it to the identical bytes and checks the frame.

    cargo run --example flexible_instances | /tmp/kp/bin/python tests/kafka_python/decode_ours.py \\
        > tests/kafka_python/flexible.txt

The output format is that of tests/kafka_python/vectors.txt (see generate.py), plus
`u:UUID` values. Records fields are left out: their bytes are checked by the record tests.
"""

import importlib
import inspect
import pkgutil
import struct
import sys
import uuid

import kafka
import kafka.protocol
from kafka.protocol.api_message import ApiMessage

KAFKA_PYTHON_VERSION = "3.0.12"
RECORDS = ("records", "unaligned_records")


def classes():
    out = {}
    for mod in pkgutil.walk_packages(kafka.protocol.__path__, "kafka.protocol."):
        if ".old" in mod.name or "schemas" in mod.name:
            continue
        try:
            m = importlib.import_module(mod.name)
        except ImportError:
            continue
        for _, c in inspect.getmembers(m, inspect.isclass):
            if issubclass(c, ApiMessage) and c is not ApiMessage and getattr(c, "_json", None):
                out[c.name] = c
    return out


def value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool:%s" % ("true" if v else "false")
    if isinstance(v, int):
        return "i:%d" % v
    if isinstance(v, float):
        return "f:%r" % v
    if isinstance(v, str):
        return "s:%s" % v
    if isinstance(v, (bytes, bytearray, memoryview)):
        return "b:%s" % bytes(v).hex()
    if isinstance(v, uuid.UUID):
        return "u:%s" % v
    if isinstance(v, (set, frozenset)):
        # An int32 bit field (authorized operations), as the set of its bits.
        n = sum(1 << b for b in v)
        return "i:%d" % (n - (1 << 32) if n >= 1 << 31 else n)
    raise TypeError("no line for %r" % (v,))


# kafka-python's names where they are not the snake_case of the schema's, by message and path.
RENAMES = {
    ("MetadataResponse", "authorized_operations"): "cluster_authorized_operations",
    ("MetadataResponse", "topics.authorized_operations"): "topic_authorized_operations",
    ("DescribeClusterResponse", "authorized_operations"): "cluster_authorized_operations",
    ("TxnOffsetCommitRequest", "generation_id"): "generation_id_or_member_epoch",
}


def fields(lines, message, obj, version, path, plain):
    """Lists the fields of `obj` at `version`; `plain` is the path without indices."""
    for f in type(obj)._struct._fields:
        if not f.for_version_q(version) or f.name in RECORDS:
            continue
        v = getattr(obj, f.name)
        if v is None and f.tagged_field_q(version):
            continue  # a tagged field left out: it holds its default, which kafka-python keeps as None
        name = RENAMES.get((message, (plain + "." if plain else "") + f.name), f.name)
        p = "%s.%s" % (path, name) if path else name
        q = "%s.%s" % (plain, f.name) if plain else f.name
        if v is None:
            lines.append(("len %s null" if f.is_array() else "f %s null") % p)
        elif f.is_struct():
            fields(lines, message, v, version, p, q)
        elif f.is_array():
            lines.append("len %s %d" % (p, len(v)))
            for i, e in enumerate(v):
                if f.is_struct_array():
                    fields(lines, message, e, version, "%s[%d]" % (p, i), q)
                else:
                    lines.append("f %s[%d] %s" % (p, i, value(e)))
        else:
            lines.append("f %s %s" % (p, value(v)))


def decode(cls, body, version, name):
    """`cls.decode`, also checking that every byte was read (which it does not report).
    Raises what kafka-python raises on what it cannot read."""
    flexible = cls.flexible_version_q(version)
    read = cls._struct.compiled_decode_from(
        version, compact=flexible, tagged=flexible, data_class=cls[None]
    )
    obj, end = read(memoryview(body), 0)
    if end != len(body):
        raise ValueError("%s: kafka-python read %d of %d bytes" % (name, end, len(body)))
    obj._header = None
    return obj


def main():
    assert kafka.__version__ == KAFKA_PYTHON_VERSION, kafka.__version__
    known = classes()
    out = [
        "# Generated by tests/kafka_python/decode_ours.py with kafka-python %s (Python %d.%d)."
        % (kafka.__version__, sys.version_info[0], sys.version_info[1]),
        "# Do not edit: regenerate with that script. Format: see its docstring.",
    ]
    skipped = set()
    unread = {}
    done = set()
    for line in sys.stdin:
        _, name, key, version, direction, body = line.split()
        version = int(version)
        body = bytes.fromhex(body)
        cls = known.get(name.rsplit("_v", 1)[0])
        if cls is None or not (cls.min_version <= version <= cls.max_version) \
                or not cls.flexible_version_q(version):
            skipped.add(name)
            continue
        if name in done:
            continue
        try:
            obj = decode(cls, body, version, name)
        except Exception as e:  # kafka-python's own limits; the next instance may avoid them
            unread.setdefault(name, "%s: %s" % (type(e).__name__, e))
            continue
        done.add(name)
        unread.pop(name, None)
        # kafka-python drops unknown tagged fields, so its own encoding of the value may be
        # shorter; only its header is taken from it.
        again = bytes(obj.encode())
        out.append("case kwire-%s %s %d %s %s" % (name, key, version, direction, body.hex()))
        correlation_id = 0x20000 + int(key) * 100 + version
        if direction == "request":
            obj.with_header(correlation_id=correlation_id, client_id="kp-%s" % name)
        else:
            obj.with_header(correlation_id=correlation_id)
        frame = bytes(obj.encode(header=True, framed=True))
        assert frame.endswith(again), name
        header = frame[4 : len(frame) - len(again)]
        prefix = struct.pack(">i", len(header) + len(body)) + header
        out.append("frame %s" % prefix.hex())
        if direction == "request":
            out.append("header %d kp-%s" % (correlation_id, name))
        else:
            out.append("header %d" % correlation_id)
        fields(out, cls.name, obj, version, "", "")
        out.append("end")
    for name, why in sorted(unread.items()):
        out.append("# kafka-python could read no instance of %s (%s)" % (name, why.strip()))
    sys.stdout.write("\n".join(out) + "\n")
    print("%d cases, %d unread, %d not known to kafka-python"
          % (len(done), len(unread), len(skipped)), file=sys.stderr)


if __name__ == "__main__":
    main()
