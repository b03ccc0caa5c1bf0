#!/usr/bin/env python3
"""Real Kafka clients against a broker (the mini_broker example in CI).

For every client (kcat, kafka-python, confluent-kafka, aiokafka) and every compression it
offers (none, gzip, snappy, lz4, zstd) this produces a deterministic set of messages to a fresh
three-partition topic and consumes them back from the beginning, comparing every key, value,
header, partition, offset and timestamp with what was produced and with what the producer's delivery
reports said. Each topic is then read again by a different client, which proves the stored
batches are interchangeable. Further scenarios: acks=0 and acks=all, the idempotent producer,
a consumer group with subscribe and commit, a long-poll fetch, fetch size limits smaller than
the batches, timestamp lookups, topic administration errors, and the admin APIs that describe
and list groups, describe topic and broker configs and describe the cluster.

    python3 tests/interop/clients.py --broker 127.0.0.1:9092 [--allow-missing CLIENT]...

With `--sasl`, against a broker that requires SASL of the user `alice` (password in the
environment variable KWIRE_SASL_PASSWORD): every client produces and consumes back over
SASL_PLAINTEXT with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512, and must fail to produce with a
wrong password. With `--tls CA_FILE`, every connection is TLS, the broker's certificate checked
against that file: SSL, or SASL_SSL with `--sasl`.

Prints one line per case and a summary; exits 1 on any failure. A client that is not installed
fails the run unless `--allow-missing CLIENT` names it (then its cases are skipped).
Standard library only, plus the client packages.
"""

from __future__ import annotations

import argparse
import ssl
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import dataclass, field

CLIENTS = ["kcat", "kafka-python", "confluent-kafka", "aiokafka"]
COMPRESSIONS = ["none", "gzip", "snappy", "lz4", "zstd"]
PARTITIONS = 3
MESSAGES = 50
# Seconds any one wait may take before the case fails: a hang fails fast and says where.
TIMEOUT = 15.0
# Per-run suffix, so topics are fresh even against a broker that has seen an earlier run.
RUN = f"{os.getpid() % 100000}"
# When the run started: a record whose producer set no timestamp must carry one from the run.
RUN_START_MS = int(time.time() * 1000)


class CaseFailure(Exception):
    """A case's check failed; the message says what differed."""


# --- the messages -------------------------------------------------------------------------------


@dataclass
class Msg:
    index: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]
    partition: int | None  # explicit partition, or None for the client's partitioner
    timestamp: int | None = None

    def content(self) -> tuple:
        return (self.key, self.value, tuple(self.headers))

    def describe(self) -> str:
        return f"#{self.index} key={self.key!r} value={short(self.value)} headers={self.headers}"


@dataclass
class Got:
    """A record as a consumer returned it."""

    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: list[tuple[str, bytes | None]]
    timestamp: int | None = None

    def content(self) -> tuple:
        return (self.key, self.value, tuple(self.headers))


def short(b: bytes | None) -> str:
    if b is None:
        return "None"
    return repr(b if len(b) <= 24 else b[:24] + b"...")


def make_messages(
    n: int,
    null_value: bool = True,
    null_header: bool = True,
    headers: bool = True,
    avoid: bytes = b"",
    pad: int = 0,
) -> list[Msg]:
    """A deterministic message set: null, empty, binary and UTF-8 keys; empty, null, binary and
    UTF-8 values; several headers including a repeated key and empty and null values; explicit
    partitions for every third message. `avoid` lists bytes replaced by '~' (kcat's delimiters),
    `pad` grows each value by that many bytes."""

    def clean(b: bytes | None) -> bytes | None:
        if b is None or not avoid:
            return b
        return bytes(0x7E if c in avoid else c for c in b)

    msgs = []
    for i in range(n):
        k = i % 10
        if k == 0:
            key = None
        elif k == 1:
            key = b""
        elif k == 2:
            key = bytes([i, 0x00, 0xFF, 0x80, 0x0A, 0x0D, 0x7F, 0xC3]) + b"bin"
        elif k == 3:
            key = f"ключ-ü-✓-{i}".encode()
        else:
            key = f"key-{i}".encode()
        if i == 5:
            value = b""
        elif i == 15 and null_value:
            value = None
        elif i % 7 == 0:
            value = bytes((i * 31 + j * 7) % 256 for j in range(64)) + f"|{i}".encode()
        else:
            value = (f"value {i} ☃ " + "x" * ((i * 37) % 300)).encode()
        if value is not None and pad:
            value += bytes((i + j) % 251 for j in range(pad))
        h: list[tuple[str, bytes | None]] = []
        if headers:
            m = i % 4
            if m == 1:
                h = [("trace", f"id-{i}".encode())]
            elif m == 2:
                h = [("h", b"a"), ("h", b"b"), ("empty", b"")]
                if null_header:
                    h.append(("null", None))
            elif m == 3:
                h = [("utf", "ü✓".encode()), ("bin", bytes([0, 0xFF, 0x80, i]))]
        h = [(hk, clean(hv)) for hk, hv in h]
        partition = (i // 3) % PARTITIONS if i % 3 == 0 else None
        msgs.append(Msg(i, clean(key), clean(value), h, partition))
    seen = set()
    for m in msgs:
        assert m.content() not in seen, f"message set not unique at {m.index}"
        seen.add(m.content())
    return msgs


# --- checking -----------------------------------------------------------------------------------


def check(
    msgs: list[Msg],
    delivered: list[tuple[int, int]],
    got: list[Got],
    what: str = "",
) -> None:
    """Every produced message consumed exactly once, with the partition and offset its delivery
    report gave (offset -1: not reported, as with acks=0), explicit partitions honoured, the
    offsets of each partition 0..n-1 in the order the messages were sent, and the timestamp it
    was sent with (or, when the client stamped it, one from this run)."""
    problems: list[str] = []
    by_content = {m.content(): m for m in msgs}
    found: dict[int, Got] = {}
    for g in got:
        m = by_content.get(g.content())
        if m is None:
            problems.append(
                f"unexpected record p{g.partition}@{g.offset} key={g.key!r} "
                f"value={short(g.value)} headers={g.headers}"
            )
        elif m.index in found:
            problems.append(f"{m.describe()} consumed twice (p{g.partition}@{g.offset})")
        else:
            found[m.index] = g
    for m in msgs:
        if m.index not in found:
            problems.append(f"{m.describe()} not consumed")
    per_partition: dict[int, list[int]] = {}
    now_ms = int(time.time() * 1000)
    for pos, m in enumerate(msgs):
        g = found.get(m.index)
        if g is None:
            continue
        if m.timestamp is not None and g.timestamp != m.timestamp:
            problems.append(f"#{m.index}: sent with timestamp {m.timestamp} but consumed with {g.timestamp}")
        if m.timestamp is None and not (
            g.timestamp is not None and RUN_START_MS - 5_000 <= g.timestamp <= now_ms + 5_000
        ):
            problems.append(f"#{m.index}: timestamp {g.timestamp} is not from this run "
                            f"({RUN_START_MS}..{now_ms})")
        dp, do = delivered[pos]
        if dp != g.partition:
            problems.append(f"#{m.index}: delivered to p{dp} but consumed from p{g.partition}")
        if do >= 0 and do != g.offset:
            problems.append(f"#{m.index}: delivered at offset {do} but consumed at {g.offset}")
        if m.partition is not None and m.partition != g.partition:
            problems.append(f"#{m.index}: sent to p{m.partition} but consumed from p{g.partition}")
        per_partition.setdefault(g.partition, []).append(g.offset)
    for p, offsets in sorted(per_partition.items()):
        if offsets != list(range(len(offsets))):
            problems.append(f"p{p}: offsets in send order are {offsets}, not 0..{len(offsets) - 1}")
    if problems:
        more = f" (+{len(problems) - 5} more)" if len(problems) > 5 else ""
        raise CaseFailure(f"{what}{len(problems)} problem(s): " + "; ".join(problems[:5]) + more)


def wait_for(pred, what: str, timeout: float = TIMEOUT, step: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        v = pred()
        if v:
            return v
        time.sleep(step)
    raise CaseFailure(f"timed out after {timeout:.0f}s waiting for {what}")


# --- the clients --------------------------------------------------------------------------------


class Client:
    name = ""
    compressions = COMPRESSIONS
    null_value = True
    null_header = True

    def __init__(self, broker: str):
        self.broker = broker
        # (mechanism, user, password), or None: no SASL.
        self.sasl: tuple[str, str, str] | None = None
        # The CA file the broker's certificate is checked against over TLS, or None: no TLS.
        self.ca_file: str | None = None
        # No client log on stderr (a case that expects connections to fail).
        self.quiet = False

    def messages(self, n: int = MESSAGES, **kw) -> list[Msg]:
        msgs = make_messages(n, null_value=self.null_value, null_header=self.null_header, **kw)
        # Every other message carries its own timestamp, out of order and from before the run,
        # which must come back exactly; the others are stamped by the client when sent.
        for m in msgs:
            if m.index % 2 == 1:
                m.timestamp = RUN_START_MS - 86_400_000 + (m.index * 7919) % 10_000
        return msgs

    def protocol(self) -> str:
        """Kafka's name of the connections' security: PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL."""
        return ("SASL_" if self.sasl else "") + ("SSL" if self.ca_file else "PLAINTEXT")

    def create_topic(self, topic: str, partitions: int = PARTITIONS) -> None:
        """Creates the topic (None: the client relies on auto-creation)."""

    # Implemented by each client:
    #   produce(topic, msgs, compression, acks, idempotent) -> ([(partition, offset)], msgs in send order)
    #   consume(topic, n, small_fetch=False) -> [Got]


class Kcat(Client):
    """kcat (librdkafka): produces from a file in runs (headers and partition are per run),
    reads the delivery reports `-v -v -v` prints, consumes with a length-prefixed format."""

    name = "kcat"
    DELIM = b"\x01"
    KEY_DELIM = b"\x02"
    # Header sets per run (kcat gives every message of a run the same headers).
    RUN_HEADERS = [
        [("h", b"a"), ("h", b"b"), ("empty", b""), ("null", None)],
        [("trace", b"kcat-1")],
        [],
        [("utf", "ü✓".encode()), ("x", b"y")],
    ]
    DR = re.compile(rb"Message delivered to partition (-?\d+) \(offset (-?\d+)\)")

    def __init__(self, broker: str):
        super().__init__(broker)
        if not shutil.which("kcat"):
            raise ImportError("kcat not on PATH")

    def messages(self, n: int = MESSAGES, **kw) -> list[Msg]:
        # No null values (an empty line is an empty value unless -Z) and no delimiter bytes;
        # headers are those of the run each message falls in (set by produce).
        kw["headers"] = False
        return make_messages(n, null_value=False, avoid=self.DELIM + self.KEY_DELIM, **kw)

    def run(self, args: list[str], stdin: bytes | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
        cmd = ["kcat", "-b", self.broker, "-m", "10", "-X", "client.id=kcat"]
        cmd += ["-X", f"security.protocol={self.protocol()}"]
        if self.sasl:
            m, user, password = self.sasl
            cmd += ["-X", f"sasl.mechanisms={m}",
                    "-X", f"sasl.username={user}", "-X", f"sasl.password={password}"]
        if self.ca_file:
            cmd += ["-X", f"ssl.ca.location={self.ca_file}"]
        cmd += args
        try:
            r = subprocess.run(cmd, input=stdin, capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise CaseFailure(f"kcat timed out after {timeout}s: {' '.join(cmd)}; stderr: {e.stderr!r:.300}")
        if r.returncode != 0:
            raise CaseFailure(f"kcat exited {r.returncode}: {' '.join(cmd)}; stderr: {r.stderr[-600:]!r}")
        return r

    def produce(self, topic, msgs, compression="none", acks=-1, idempotent=False, batches=None):
        runs: dict[int, list[Msg]] = {}
        for m in msgs:
            run = PARTITIONS if m.partition is None else m.partition
            m.headers = list(self.RUN_HEADERS[run])
            runs.setdefault(run, []).append(m)
        sent: list[Msg] = []
        delivered: list[tuple[int, int]] = []
        pending: list[tuple[list[Msg], list[tuple[int, int]]]] = []
        with tempfile.TemporaryDirectory() as tmp:
            for run, ms in sorted(runs.items()):
                path = os.path.join(tmp, f"run{run}")
                with open(path, "wb") as f:
                    for m in ms:
                        if m.key is not None:
                            f.write(m.key + self.KEY_DELIM)
                        f.write((m.value or b"") + self.DELIM)
                args = ["-P", "-t", topic, "-K", r"\x02", "-D", r"\x01", "-l", "-v", "-v", "-v",
                        "-X", f"compression.codec={compression}",
                        "-X", f"acks={acks}", "-X", "linger.ms=5"]
                if idempotent:
                    args += ["-X", "enable.idempotence=true"]
                if batches:
                    args += ["-X", f"batch.num.messages={batches}"]
                if run < PARTITIONS:
                    args += ["-p", str(run)]
                for hk, hv in self.RUN_HEADERS[run]:
                    args += ["-H", hk if hv is None else f"{hk}={hv.decode()}"]
                r = self.run(args + [path])
                drs = [(int(p), int(o)) for p, o in self.DR.findall(r.stderr)]
                if len(drs) != len(ms):
                    raise CaseFailure(f"kcat reported {len(drs)} deliveries for {len(ms)} messages: {r.stderr[-400:]!r}")
                sent += ms
                if run < PARTITIONS:
                    delivered += drs
                else:
                    # The partitioner chose: matched to messages once consumed (see resolve).
                    delivered += [(-2, -2)] * len(ms)
                    pending.append((ms, drs))
        self.pending = pending
        return delivered, sent

    def resolve(self, sent, delivered, got):
        """Fills in the delivery reports of a partitioner-chosen run: the k-th report naming
        partition p belongs to the k-th message of the run consumed from p."""
        where = {}
        by_content = {g.content(): g for g in got}
        for ms, drs in getattr(self, "pending", []):
            reports: dict[int, list[int]] = {}
            for p, o in drs:
                reports.setdefault(p, []).append(o)
            for m in ms:
                g = by_content.get(m.content())
                if g is None:
                    continue
                lst = reports.get(g.partition, [])
                where[m.index] = (g.partition, lst.pop(0) if lst else -3)
            for p, rest in reports.items():
                if rest:
                    raise CaseFailure(f"kcat reported deliveries to p{p} at {rest} that no consumed message matches")
        self.pending = []
        return [where.get(m.index, d) if d == (-2, -2) else d for m, d in zip(sent, delivered)]

    def consume(self, topic, n, small_fetch=False):
        args = ["-C", "-t", topic, "-o", "beginning", "-e", "-J", "-q"]
        if small_fetch:
            args += ["-X", "fetch.max.bytes=1600", "-X", "max.partition.fetch.bytes=1200",
                     "-X", "message.max.bytes=1000"]
        return self.parse(self.run(args).stdout)

    @staticmethod
    def parse(out: bytes) -> list[Got]:
        """kcat's JSON envelope, one record a line. kcat escapes control characters and quotes
        and writes other bytes as they are, so decoding with surrogateescape and encoding back
        gives every key, value and header byte for byte; null stays null."""

        def raw(s):
            return None if s is None else s.encode("utf-8", "surrogateescape")

        got = []
        for line in out.split(b"\n"):
            if not line.strip():
                continue
            try:
                d = json.loads(line.decode("utf-8", "surrogateescape"))
            except ValueError as e:
                raise CaseFailure(f"kcat printed something other than a JSON record ({e}): {line[:120]!r}")
            h = d.get("headers") or []
            headers = [(h[i], raw(h[i + 1])) for i in range(0, len(h), 2)]
            got.append(Got(d["partition"], d["offset"], raw(d["key"]), raw(d["payload"]), headers, d.get("ts")))
        return got

    def metadata(self) -> str:
        return self.run(["-L"]).stdout.decode(errors="replace")


class KafkaPython(Client):
    name = "kafka-python"
    null_header = False  # send() refuses a header whose value is None

    def __init__(self, broker: str):
        super().__init__(broker)
        import kafka  # noqa: F401

        self.kafka = kafka

    def common(self):
        conf = dict(bootstrap_servers=self.broker, request_timeout_ms=int(TIMEOUT * 1000),
                    reconnect_backoff_max_ms=500)
        conf.update(security_protocol=self.protocol())
        if self.sasl:
            m, user, password = self.sasl
            conf.update(sasl_mechanism=m,
                        sasl_plain_username=user, sasl_plain_password=password,
                        bootstrap_timeout_ms=int(TIMEOUT * 1000))
        if self.ca_file:
            conf.update(ssl_cafile=self.ca_file, ssl_check_hostname=True)
        return conf

    def create_topic(self, topic, partitions=PARTITIONS):
        from kafka.admin import KafkaAdminClient, NewTopic

        admin = KafkaAdminClient(**self.common())
        try:
            admin.create_topics([NewTopic(topic, partitions, 1)], timeout_ms=5000)
        finally:
            admin.close()

    def producer(self, compression="none", acks=-1, idempotent=False, **kw):
        from kafka import KafkaProducer

        return KafkaProducer(
            compression_type=None if compression == "none" else compression,
            acks="all" if acks == -1 else acks,
            enable_idempotence=idempotent,
            linger_ms=5,
            max_block_ms=int(TIMEOUT * 1000),
            **self.common(), **kw,
        )

    def produce(self, topic, msgs, compression="none", acks=-1, idempotent=False, batches=None):
        p = self.producer(compression, acks, idempotent)
        try:
            futures = []
            for i, m in enumerate(msgs):
                futures.append(p.send(topic, key=m.key, value=m.value, headers=m.headers,
                                      partition=m.partition, timestamp_ms=m.timestamp))
                if batches and (i + 1) % batches == 0:
                    p.flush(timeout=TIMEOUT)
            p.flush(timeout=TIMEOUT)
            delivered = []
            for f in futures:
                md = f.get(timeout=TIMEOUT)
                delivered.append((md.partition, md.offset))
            return delivered, msgs
        finally:
            p.close(timeout=5)

    def consumer(self, **kw):
        from kafka import KafkaConsumer

        return KafkaConsumer(enable_auto_commit=False, auto_offset_reset="earliest",
                             **self.common(), **kw)

    def consume(self, topic, n, small_fetch=False):
        from kafka import TopicPartition

        kw = dict(max_partition_fetch_bytes=1200, fetch_max_bytes=1600) if small_fetch else {}
        c = self.consumer(**kw)
        try:
            tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
            c.assign(tps)
            c.seek_to_beginning(*tps)
            return self.drain(c, n)
        finally:
            c.close(autocommit=False)

    @staticmethod
    def drain(c, n, timeout=TIMEOUT):
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            for tp, records in c.poll(timeout_ms=200).items():
                for r in records:
                    got.append(Got(r.partition, r.offset, r.key, r.value,
                                   [(k, v) for k, v in r.headers], r.timestamp))
        return got

    @staticmethod
    def subscribe_known(c, topic):
        """Subscribes `c` to `topic` once its metadata holds the topic's partitions. Otherwise the
        leader can assign before the metadata answer arrives: it assigns nothing and counts on
        the metadata change to rebalance again, a client-side path with its own timing that the
        group cases do not test."""
        if not c.partitions_for_topic(topic):
            raise CaseFailure(f"the consumer's metadata has no partitions for {topic}")
        c.subscribe([topic])

    def group(self, topic, n, group):
        from kafka import TopicPartition

        c = self.consumer(group_id=group, session_timeout_ms=10000, heartbeat_interval_ms=1000)
        try:
            self.subscribe_known(c, topic)
            got = self.drain(c, n)
            c.commit()
            tps = [TopicPartition(topic, p) for p in range(PARTITIONS)]
            committed = {tp.partition: c.committed(tp) for tp in tps}
            ends = {tp.partition: o for tp, o in c.end_offsets(tps).items()}
            assignment = sorted(tp.partition for tp in c.assignment())
        finally:
            c.close(autocommit=False)
        return got, committed, ends, assignment

    def offsets_for_times(self, topic, stamps: dict[int, int]):
        from kafka import TopicPartition

        c = self.consumer()
        try:
            r = c.offsets_for_times({TopicPartition(topic, p): t for p, t in stamps.items()})
            return {tp.partition: (None if v is None else (v.offset, v.timestamp)) for tp, v in r.items()}
        finally:
            c.close(autocommit=False)

    def admin_errors(self, topic):
        from kafka.admin import KafkaAdminClient, NewTopic
        from kafka.errors import TopicAlreadyExistsError, UnknownTopicOrPartitionError

        admin = KafkaAdminClient(**self.common())
        try:
            admin.create_topics([NewTopic(topic, 2, 1)], timeout_ms=5000)
            try:
                admin.create_topics([NewTopic(topic, 2, 1)], timeout_ms=5000)
                raise CaseFailure("creating an existing topic succeeded")
            except TopicAlreadyExistsError:
                pass
            admin.delete_topics([topic], timeout_ms=5000)
            try:
                admin.delete_topics([topic], timeout_ms=5000)
                raise CaseFailure("deleting a deleted topic succeeded")
            except UnknownTopicOrPartitionError:
                pass
        finally:
            admin.close()


    def admin_describe(self, topic, group):
        from kafka import KafkaConsumer
        from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient

        admin = KafkaAdminClient(**self.common())
        c = KafkaConsumer(group_id=group, client_id=f"{self.name}-member",
                          session_timeout_ms=10000, heartbeat_interval_ms=1000, **self.common())
        try:
            self.subscribe_known(c, topic)
            wait_for(lambda: c.poll(timeout_ms=100) is not None and c.assignment(), "an assignment")
            g = admin.describe_groups([group])[group]
            described = AdminView(
                state=g["group_state"],
                members=[(m["client_id"], sorted(p for a in m["member_assignment"]["assigned_partitions"]
                                                 for p in a["partitions"])) for m in g["members"]],
                listed=[x["group_id"] for x in admin.list_groups()],
            )
            configs = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)],
                                             config_filter="all")["topic"][topic]
            described.retention_ms = configs["retention.ms"]["value"]
            broker = admin.describe_configs([ConfigResource(ConfigResourceType.BROKER, "1")],
                                            config_filter="all")["broker"]["1"]
            described.num_partitions = broker["num.partitions"]["value"]
            cluster = admin.describe_cluster()
            described.cluster = (cluster["cluster_id"], cluster["controller_id"],
                                 [(b["broker_id"], b["host"], b["port"]) for b in cluster["brokers"]])
        finally:
            c.close(autocommit=False)
        try:
            if admin.describe_groups([group])[group]["group_state"] != "Empty":
                raise CaseFailure("the group is not Empty once its member left")
            deleted = admin.delete_groups([group])
            if deleted.get(group) != "OK":
                raise CaseFailure(f"deleting the empty group: {deleted}")
            if group in [x["group_id"] for x in admin.list_groups()]:
                raise CaseFailure("the deleted group is still listed")
        finally:
            admin.close()
        return described


class Confluent(Client):
    name = "confluent-kafka"

    def __init__(self, broker: str):
        super().__init__(broker)
        import confluent_kafka

        self.ck = confluent_kafka

    def common(self):
        conf = {"bootstrap.servers": self.broker, "socket.timeout.ms": int(TIMEOUT * 1000),
                "reconnect.backoff.max.ms": 500, "client.id": "confluent-kafka"}
        conf["security.protocol"] = self.protocol()
        if self.sasl:
            m, user, password = self.sasl
            conf.update({"sasl.mechanism": m,
                         "sasl.username": user, "sasl.password": password})
        if self.ca_file:
            conf["ssl.ca.location"] = self.ca_file
        if self.quiet:
            conf["log_level"] = 0
        return conf

    def create_topic(self, topic, partitions=PARTITIONS):
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient(self.common())
        fs = admin.create_topics([NewTopic(topic, num_partitions=partitions, replication_factor=1)],
                                 operation_timeout=5, request_timeout=TIMEOUT)
        fs[topic].result(timeout=TIMEOUT)

    def produce(self, topic, msgs, compression="none", acks=-1, idempotent=False, batches=None):
        conf = dict(self.common())
        conf.update({"compression.type": compression, "acks": str(acks), "linger.ms": 5,
                     "enable.idempotence": idempotent, "message.timeout.ms": int(TIMEOUT * 1000)})
        p = self.ck.Producer(conf)
        delivered: list[tuple[int, int] | None] = [None] * len(msgs)
        errors = []

        def report(pos):
            def cb(err, msg):
                if err is not None:
                    errors.append(f"#{msgs[pos].index}: {err}")
                delivered[pos] = (msg.partition(), msg.offset())
            return cb

        for pos, m in enumerate(msgs):
            kw = {}
            if m.partition is not None:
                kw["partition"] = m.partition
            if m.timestamp is not None:
                kw["timestamp"] = m.timestamp
            p.produce(topic, value=m.value, key=m.key, headers=m.headers or None,
                      on_delivery=report(pos), **kw)
            if batches and (pos + 1) % batches == 0:
                p.flush(TIMEOUT)
        left = p.flush(TIMEOUT)
        if left:
            raise CaseFailure(f"{left} message(s) not delivered within {TIMEOUT:.0f}s")
        if errors:
            raise CaseFailure("delivery errors: " + "; ".join(errors[:3]))
        return delivered, msgs

    def consumer(self, extra=None):
        conf = dict(self.common())
        conf.update({"group.id": f"unused-{RUN}", "enable.auto.commit": False,
                     "auto.offset.reset": "earliest", "enable.partition.eof": False})
        conf.update(extra or {})
        return self.ck.Consumer(conf)

    @staticmethod
    def to_got(m) -> Got:
        return Got(m.partition(), m.offset(), m.key(), m.value(),
                   [(k, v) for k, v in (m.headers() or [])], m.timestamp()[1])

    def drain(self, c, n, timeout=TIMEOUT):
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            m = c.poll(0.2)
            if m is None:
                continue
            if m.error():
                raise CaseFailure(f"consumer error: {m.error()}")
            got.append(self.to_got(m))
        return got

    def consume(self, topic, n, small_fetch=False):
        extra = {}
        if small_fetch:
            extra = {"fetch.max.bytes": 1600, "max.partition.fetch.bytes": 1200,
                     "message.max.bytes": 1000}
        c = self.consumer(extra)
        try:
            c.assign([self.ck.TopicPartition(topic, p, self.ck.OFFSET_BEGINNING) for p in range(PARTITIONS)])
            return self.drain(c, n)
        finally:
            c.close()

    def group(self, topic, n, group):
        c = self.consumer({"group.id": group, "session.timeout.ms": 10000,
                           "heartbeat.interval.ms": 1000})
        try:
            c.subscribe([topic])
            got = self.drain(c, n)
            c.commit(asynchronous=False)
            tps = [self.ck.TopicPartition(topic, p) for p in range(PARTITIONS)]
            committed = {tp.partition: tp.offset for tp in c.committed(tps, timeout=TIMEOUT)}
            ends = {}
            for tp in tps:
                _low, high = c.get_watermark_offsets(tp, timeout=TIMEOUT)
                ends[tp.partition] = high
            assignment = sorted(tp.partition for tp in c.assignment())
        finally:
            c.close()
        return got, committed, ends, assignment

    def offsets_for_times(self, topic, stamps):
        c = self.consumer()
        try:
            r = c.offsets_for_times([self.ck.TopicPartition(topic, p, t) for p, t in stamps.items()],
                                    timeout=TIMEOUT)
            return {tp.partition: (None if tp.offset < 0 else (tp.offset, None)) for tp in r}
        finally:
            c.close()

    def admin_errors(self, topic):
        from confluent_kafka.admin import AdminClient, NewTopic

        admin = AdminClient(self.common())

        def create():
            fs = admin.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1)],
                                     operation_timeout=5, request_timeout=TIMEOUT)
            return fs[topic].result(timeout=TIMEOUT)

        def delete():
            fs = admin.delete_topics([topic], operation_timeout=5, request_timeout=TIMEOUT)
            return fs[topic].result(timeout=TIMEOUT)

        create()
        try:
            create()
            raise CaseFailure("creating an existing topic succeeded")
        except self.ck.KafkaException as e:
            if e.args[0].code() != self.ck.KafkaError.TOPIC_ALREADY_EXISTS:
                raise CaseFailure(f"creating an existing topic: {e}, not TOPIC_ALREADY_EXISTS")
        delete()
        try:
            delete()
            raise CaseFailure("deleting a deleted topic succeeded")
        except self.ck.KafkaException as e:
            if e.args[0].code() != self.ck.KafkaError.UNKNOWN_TOPIC_OR_PART:
                raise CaseFailure(f"deleting a deleted topic: {e}, not UNKNOWN_TOPIC_OR_PART")


    def admin_describe(self, topic, group):
        from confluent_kafka.admin import AdminClient, ConfigResource

        admin = AdminClient(self.common())
        c = self.consumer({"group.id": group, "client.id": f"{self.name}-member",
                           "session.timeout.ms": 10000, "heartbeat.interval.ms": 1000})
        try:
            c.subscribe([topic])
            wait_for(lambda: (c.poll(0.1), c.assignment())[1], "an assignment")
            g = admin.describe_consumer_groups([group])[group].result(timeout=TIMEOUT)
            listed = admin.list_consumer_groups().result(timeout=TIMEOUT)
            described = AdminView(
                state=g.state.name.title().replace("_", ""),
                members=[(m.client_id, sorted(p.partition for p in m.assignment.topic_partitions))
                         for m in g.members],
                listed=[x.group_id for x in listed.valid],
            )
            r = ConfigResource("topic", topic)
            described.retention_ms = admin.describe_configs([r])[r].result(timeout=TIMEOUT)["retention.ms"].value
            b = ConfigResource("broker", "1")
            described.num_partitions = admin.describe_configs([b])[b].result(timeout=TIMEOUT)["num.partitions"].value
            cluster = admin.describe_cluster().result(timeout=TIMEOUT)
            described.cluster = (cluster.cluster_id, cluster.controller.id,
                                 [(n.id, n.host, n.port) for n in cluster.nodes])
        finally:
            c.close()
        return described


class AioKafka(Client):
    name = "aiokafka"

    def __init__(self, broker: str):
        super().__init__(broker)
        import aiokafka

        self.aio = aiokafka

    def common(self):
        conf = dict(bootstrap_servers=self.broker, request_timeout_ms=int(TIMEOUT * 1000),
                    retry_backoff_ms=50)
        conf.update(security_protocol=self.protocol())
        if self.sasl:
            m, user, password = self.sasl
            conf.update(sasl_mechanism=m,
                        sasl_plain_username=user, sasl_plain_password=password)
        if self.ca_file:
            conf.update(ssl_context=ssl.create_default_context(cafile=self.ca_file))
        return conf

    def run(self, coro):
        return asyncio.run(asyncio.wait_for(coro, TIMEOUT * 2))

    def admin_describe(self, topic, group):
        from aiokafka.admin import AIOKafkaAdminClient
        from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

        async def go():
            admin = AIOKafkaAdminClient(**self.common())
            await admin.start()
            c = self.aio.AIOKafkaConsumer(topic, group_id=group, client_id=f"{self.name}-member",
                                          session_timeout_ms=10000, heartbeat_interval_ms=1000,
                                          **self.common())
            await c.start()
            try:
                deadline = time.monotonic() + TIMEOUT
                while not c.assignment() and time.monotonic() < deadline:
                    await c.getmany(timeout_ms=100)
                [response] = await admin.describe_consumer_groups([group])
                [g] = response.groups
                # (error, group, state, protocol type, protocol, members)
                described = AdminView(state=g[2], members=[(m[1], None) for m in g[5]],
                                      listed=[x[0] for x in await admin.list_consumer_groups()])
                [configs] = await admin.describe_configs(
                    [ConfigResource(ConfigResourceType.TOPIC, topic)])
                entries = {e[0]: e[1] for e in configs.resources[0][4]}
                described.retention_ms = entries.get("retention.ms")
                [configs] = await admin.describe_configs(
                    [ConfigResource(ConfigResourceType.BROKER, "1")])
                entries = {e[0]: e[1] for e in configs.resources[0][4]}
                described.num_partitions = entries.get("num.partitions")
                cluster = await admin.describe_cluster()
                described.cluster = (cluster["cluster_id"], cluster["controller_id"],
                                     [(b["node_id"], b["host"], b["port"]) for b in cluster["brokers"]])
                return described
            finally:
                await c.stop()
                await admin.close()

        return self.run(go())

    def create_topic(self, topic, partitions=PARTITIONS):
        from aiokafka.admin import AIOKafkaAdminClient, NewTopic

        async def go():
            admin = AIOKafkaAdminClient(**self.common())
            await admin.start()
            try:
                r = await admin.create_topics([NewTopic(topic, partitions, 1)], timeout_ms=5000)
                for row in r.topic_errors:
                    if row[1] != 0:
                        raise CaseFailure(f"CreateTopics {topic}: error {row[1]}")
            finally:
                await admin.close()

        self.run(go())

    def produce(self, topic, msgs, compression="none", acks=-1, idempotent=False, batches=None):
        async def go():
            p = self.aio.AIOKafkaProducer(
                compression_type=None if compression == "none" else compression,
                acks="all" if acks == -1 else acks, enable_idempotence=idempotent,
                linger_ms=5, **self.common())
            await p.start()
            try:
                futures = []
                for i, m in enumerate(msgs):
                    futures.append(await p.send(topic, key=m.key, value=m.value, headers=m.headers,
                                                partition=m.partition, timestamp_ms=m.timestamp))
                    if batches and (i + 1) % batches == 0:
                        await p.flush()
                mds = await asyncio.gather(*futures)
                # acks=0: no metadata comes back.
                return [(-1, -1) if md is None else (md.partition, md.offset) for md in mds], msgs
            finally:
                await p.stop()

        return self.run(go())

    async def drain(self, c, n, timeout=TIMEOUT):
        got = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            for tp, records in (await c.getmany(timeout_ms=200)).items():
                for r in records:
                    got.append(Got(r.partition, r.offset, r.key, r.value,
                                   [(k, v) for k, v in r.headers], r.timestamp))
        return got

    def consume(self, topic, n, small_fetch=False):
        kw = dict(max_partition_fetch_bytes=1200, fetch_max_bytes=1600) if small_fetch else {}

        async def go():
            c = self.aio.AIOKafkaConsumer(enable_auto_commit=False, auto_offset_reset="earliest",
                                          **self.common(), **kw)
            await c.start()
            try:
                tps = [self.aio.TopicPartition(topic, p) for p in range(PARTITIONS)]
                c.assign(tps)
                await c.seek_to_beginning(*tps)
                return await self.drain(c, n)
            finally:
                await c.stop()

        return self.run(go())

    def group(self, topic, n, group):
        async def go():
            c = self.aio.AIOKafkaConsumer(topic, group_id=group, enable_auto_commit=False,
                                          auto_offset_reset="earliest", session_timeout_ms=10000,
                                          heartbeat_interval_ms=1000, **self.common())
            await c.start()
            try:
                got = await self.drain(c, n)
                await c.commit()
                tps = [self.aio.TopicPartition(topic, p) for p in range(PARTITIONS)]
                committed = {tp.partition: await c.committed(tp) for tp in tps}
                ends = {tp.partition: o for tp, o in (await c.end_offsets(tps)).items()}
                assignment = sorted(tp.partition for tp in c.assignment())
            finally:
                await c.stop()
            return got, committed, ends, assignment

        return self.run(go())


FACTORIES = {"kcat": Kcat, "kafka-python": KafkaPython, "confluent-kafka": Confluent, "aiokafka": AioKafka}
# Who reads whose topics in the cross-client cases.
READER = {"kcat": "kafka-python", "kafka-python": "confluent-kafka",
          "confluent-kafka": "aiokafka", "aiokafka": "kcat"}


# --- the run ------------------------------------------------------------------------------------


@dataclass
class Result:
    client: str
    compression: str
    scenario: str
    messages: int
    result: str
    detail: str = ""
    seconds: float = 0.0


@dataclass
class Run:
    broker: str
    verbose: bool
    results: list[Result] = field(default_factory=list)

    def case(self, client: str, compression: str, scenario: str, fn) -> bool:
        t0 = time.monotonic()
        n = 0
        log_at = broker_log_size()
        try:
            out = fn()
            n, detail = out if isinstance(out, tuple) else (out, "")
            r = Result(client, compression, scenario, n, "PASS", detail)
        except CaseFailure as e:
            r = Result(client, compression, scenario, n, "FAIL", str(e))
        except Exception as e:  # a client raising is a failure of the case, with its reason
            r = Result(client, compression, scenario, n, "FAIL", f"{type(e).__name__}: {e}")
            if self.verbose:
                traceback.print_exc()
        r.seconds = time.monotonic() - t0
        self.report(r)
        if r.result == "FAIL":
            print_broker_log(log_at)
        return r.result == "PASS"

    def skip(self, client: str, compression: str, scenario: str, why: str) -> None:
        self.report(Result(client, compression, scenario, 0, "SKIP", why))

    def report(self, r: Result) -> None:
        self.results.append(r)
        line = f"{r.client:<16} {r.compression:<7} {r.scenario:<28} {r.messages:>4}  {r.result:<4} {r.seconds:5.1f}s"
        if r.detail:
            line += f"  {r.detail}"
        print(line, flush=True)


def broker_log_size() -> int:
    """The size of the broker's log (named by $BROKER_LOG), 0 without one."""
    try:
        return os.path.getsize(os.environ["BROKER_LOG"])
    except (KeyError, OSError):
        return 0


def print_broker_log(since: int, limit: int = 200) -> None:
    """Prints what the broker logged from offset `since` on: the requests of a failed case."""
    path = os.environ.get("BROKER_LOG")
    if not path:
        return
    try:
        with open(path, "rb") as f:
            f.seek(since)
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return
    print(f"--- the broker's log during the case ({len(lines)} lines, last {limit} shown)", flush=True)
    for line in lines[-limit:]:
        print(f"    {line}", flush=True)


def topic_name(*parts: str) -> str:
    return "interop-" + "-".join(p.replace("_", "-") for p in parts) + f"-{RUN}"


def basic(client: Client, z: str, written: dict):
    topic = topic_name(client.name, z)
    client.create_topic(topic)
    msgs = client.messages()
    delivered, sent = client.produce(topic, msgs, compression=z)
    got = client.consume(topic, len(sent))
    if isinstance(client, Kcat):
        delivered = client.resolve(sent, delivered, got)
    check(sent, delivered, got)
    written[(client.name, z)] = (topic, sent, delivered)
    parts = sorted({p for p, _ in delivered})
    return len(sent), f"partitions {parts}"


def cross(reader: Client, topic: str, sent: list[Msg], delivered):
    got = reader.consume(topic, len(sent))
    check(sent, delivered, got)
    return len(sent)


def acks_case(client: Client, acks: int, z: str):
    topic = topic_name(client.name, f"acks{acks}".replace("-1", "all"), z)
    client.create_topic(topic)
    msgs = client.messages(20)
    if acks == 0:
        # No responses: the partitions must be known, the offsets follow from the send order.
        for m in msgs:
            if m.partition is None:
                m.partition = m.index % PARTITIONS
    delivered, sent = client.produce(topic, msgs, compression=z, acks=acks)
    if acks == 0:
        delivered = [(m.partition, -1) for m in sent]
    got = client.consume(topic, len(sent))
    if isinstance(client, Kcat) and acks != 0:
        delivered = client.resolve(sent, delivered, got)
    check(sent, delivered, got)
    return len(sent)


def idempotent_case(client: Client, z: str):
    topic = topic_name(client.name, "idempotent", z)
    client.create_topic(topic)
    msgs = client.messages(30)
    delivered, sent = client.produce(topic, msgs, compression=z, idempotent=True)
    got = client.consume(topic, len(sent))
    if isinstance(client, Kcat):
        delivered = client.resolve(sent, delivered, got)
    check(sent, delivered, got)
    return len(sent)


def small_fetch_case(client: Client, z: str):
    """Batches of about 1 KiB against a 1200-byte partition limit and a 1600-byte response
    limit: the broker cuts the last batch of a response short and the client must fetch on."""
    topic = topic_name(client.name, "small-fetch", z)
    client.create_topic(topic)
    msgs = client.messages(30, pad=150)
    delivered, sent = client.produce(topic, msgs, compression=z, batches=5)
    got = client.consume(topic, len(sent), small_fetch=True)
    if isinstance(client, Kcat):
        delivered = client.resolve(sent, delivered, got)
    check(sent, delivered, got)
    return len(sent)


def long_poll_case(client: Client):
    """A consumer waits on an empty partition; a message produced 1 s later must arrive well
    before the fetch's max wait (5 s) runs out: the broker answers a waiting fetch on append."""
    topic = topic_name(client.name, "long-poll")
    client.create_topic(topic)
    msg = [Msg(0, b"late", b"arrives while the fetch waits", [("h", b"v")], 1)]
    arrived: list = []
    errors: list = []
    started = threading.Event()

    def consume_kp():
        from kafka import TopicPartition

        c = client.consumer(fetch_max_wait_ms=5000)
        try:
            c.assign([TopicPartition(topic, 1)])
            c.seek(TopicPartition(topic, 1), 0)
            c.poll(timeout_ms=100)
            started.set()
            got = client.drain(c, 1, TIMEOUT)
            arrived.append((time.monotonic(), got))
        finally:
            c.close(autocommit=False)

    def consume_ck():
        c = client.consumer({"fetch.wait.max.ms": 5000})
        try:
            c.assign([client.ck.TopicPartition(topic, 1, 0)])
            c.poll(0.1)
            started.set()
            got = client.drain(c, 1, TIMEOUT)
            arrived.append((time.monotonic(), got))
        finally:
            c.close()

    def consume_aio():
        async def go():
            c = client.aio.AIOKafkaConsumer(enable_auto_commit=False, fetch_max_wait_ms=5000,
                                            **client.common())
            await c.start()
            try:
                tp = client.aio.TopicPartition(topic, 1)
                c.assign([tp])
                c.seek(tp, 0)
                await c.getmany(timeout_ms=100)
                started.set()
                got = await client.drain(c, 1, TIMEOUT)
                arrived.append((time.monotonic(), got))
            finally:
                await c.stop()

        client.run(go())

    target = {"kafka-python": consume_kp, "confluent-kafka": consume_ck, "aiokafka": consume_aio}[client.name]

    def guarded():
        try:
            target()
        except Exception as e:
            errors.append(e)
            started.set()

    t = threading.Thread(target=guarded, daemon=True)
    t.start()
    if not started.wait(TIMEOUT):
        raise CaseFailure("the consumer did not start")
    time.sleep(1.0)
    sent_at = time.monotonic()
    delivered, sent = client.produce(topic, msg)
    t.join(TIMEOUT + 5)
    if errors:
        raise errors[0]
    if not arrived:
        raise CaseFailure("the consumer never finished")
    at, got = arrived[0]
    check(sent, delivered, got)
    latency = at - sent_at
    if latency > 3.0:
        raise CaseFailure(f"the message arrived {latency:.1f}s after it was sent: the waiting fetch was not woken")
    return 1, f"arrived {latency * 1000:.0f} ms after send (max wait 5000 ms)"


@dataclass
class AdminView:
    """What a client's admin API reported of a group with one member, a topic and the broker."""

    state: str
    members: list  # (client id, assigned partitions or None when the client does not decode them)
    listed: list
    retention_ms: str | None = None
    num_partitions: str | None = None
    cluster: tuple | None = None


def admin_case(client: Client):
    """DescribeGroups, ListGroups, DescribeConfigs (topic and broker) and DescribeCluster through
    the client's admin API, while one consumer is in the group (kafka-python also deletes the
    group once it is empty)."""
    topic = topic_name(client.name, "admin-describe")
    group = f"admin-{client.name}-{RUN}"
    client.create_topic(topic)
    seen = client.admin_describe(topic, group)
    member = f"{client.name}-member"
    want_members = [(member, list(range(PARTITIONS)))]
    if seen.members and seen.members[0][1] is None:
        want_members = [(member, None)]
    if (seen.state, seen.members) != ("Stable", want_members):
        raise CaseFailure(f"group described as {seen.state} with {seen.members}, "
                          f"expected Stable with {want_members}")
    if group not in seen.listed:
        raise CaseFailure(f"{group} not among the listed groups {seen.listed}")
    if seen.retention_ms != "604800000":
        raise CaseFailure(f"topic retention.ms {seen.retention_ms!r}, expected Kafka's default")
    if seen.num_partitions != str(PARTITIONS):
        raise CaseFailure(f"broker num.partitions {seen.num_partitions!r}, expected {PARTITIONS}")
    host, port = client.broker.rsplit(":", 1)
    want_cluster = ("kwire-mini-broker", 1, [(1, host, int(port))])
    if seen.cluster != want_cluster:
        raise CaseFailure(f"cluster {seen.cluster}, expected {want_cluster}")
    return 0, f"group {seen.state}, retention.ms {seen.retention_ms}, cluster {seen.cluster[0]}"


def group_case(client: Client, z: str):
    topic = topic_name(client.name, "group", z)
    client.create_topic(topic)
    msgs = client.messages(30)
    delivered, sent = client.produce(topic, msgs, compression=z)
    got, committed, ends, assignment = client.group(topic, len(sent), f"group-{client.name}-{RUN}")
    check(sent, delivered, got)
    if assignment != list(range(PARTITIONS)):
        raise CaseFailure(f"the only member was assigned {assignment}")
    expected = {p: sum(1 for d in delivered if d[0] == p) for p in range(PARTITIONS)}
    if ends != expected:
        raise CaseFailure(f"end offsets {ends}, expected {expected}")
    if committed != ends:
        raise CaseFailure(f"committed offsets {committed} differ from the end offsets {ends}")
    return len(sent), f"committed {committed}"


def timestamps_case(client: Client, z: str):
    """ListOffsets by timestamp: the first offset whose timestamp is at or after the one asked."""
    topic = topic_name(client.name, "timestamps", z)
    client.create_topic(topic)
    base = 1_700_000_000_000
    msgs = client.messages(12, headers=False)
    for m in msgs:
        m.partition = 0
        m.timestamp = base + m.index * 1000
    delivered, sent = client.produce(topic, msgs, compression=z, batches=4)
    probes = {0: base + 4500, 1: base, 2: base}  # p0: offset 5; p1, p2: empty
    r = client.offsets_for_times(topic, probes)
    if r.get(1) is not None or r.get(2) is not None:
        raise CaseFailure(f"empty partitions answered {r}")
    want = 5
    if r.get(0) is None or r[0][0] != want:
        raise CaseFailure(f"offset for timestamp base+4500 on p0: {r.get(0)}, expected offset {want}")
    if r[0][1] is not None and r[0][1] != base + 5000:
        raise CaseFailure(f"timestamp answered {r[0][1]}, expected {base + 5000}")
    return len(sent), f"offset {r[0][0]}"


SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"]
SASL_USER = "alice"


def sasl_case(client: Client, mechanism: str, password: str):
    """Produce and consume back over SASL_PLAINTEXT (SASL_SSL with --tls), checked record by
    record."""
    client.sasl = (mechanism, SASL_USER, password)
    try:
        topic = topic_name(client.name, "sasl", mechanism.lower())
        client.create_topic(topic)
        msgs = client.messages(20)
        delivered, sent = client.produce(topic, msgs)
        got = client.consume(topic, len(sent))
        if isinstance(client, Kcat):
            delivered = client.resolve(sent, delivered, got)
        check(sent, delivered, got)
        return len(sent), mechanism
    finally:
        client.sasl = None


def sasl_refused_case(client: Client, mechanism: str, password: str):
    """A wrong password: nothing is delivered, the client fails, and the broker refused the
    authentication (its log says so)."""
    client.sasl = (mechanism, SASL_USER, password + "-wrong")
    client.quiet = True
    global TIMEOUT
    saved, TIMEOUT = TIMEOUT, 4.0
    since = broker_log_size()
    try:
        topic = topic_name(client.name, "sasl-refused", mechanism.lower())
        try:
            delivered, _ = client.produce(topic, client.messages(1, headers=False))
        except Exception as e:  # noqa: BLE001 - each client raises its own kind
            error = f"{type(e).__name__}: {str(e)[:100]}"
        else:
            raise CaseFailure(f"delivered {delivered} with a wrong password")
        if "BROKER_LOG" in os.environ:
            with open(os.environ["BROKER_LOG"], "rb") as f:
                f.seek(since)
                if b"SASL authentication failed" not in f.read():
                    raise CaseFailure(f"the broker refused no authentication ({error})")
        return 0, f"refused: {error}"
    finally:
        TIMEOUT = saved
        client.sasl = None
        client.quiet = False


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--broker", required=True, help="HOST:PORT")
    ap.add_argument("--allow-missing", action="append", default=[], metavar="CLIENT",
                    choices=CLIENTS, help="skip CLIENT's cases when it is not installed")
    ap.add_argument("--only", action="append", default=[], metavar="CLIENT", choices=CLIENTS,
                    help="run only these clients' cases")
    ap.add_argument("--verbose", action="store_true", help="print client tracebacks")
    ap.add_argument("--sasl", action="store_true",
                    help="the SASL cases only, against a broker that requires SASL of alice "
                         "(password in KWIRE_SASL_PASSWORD)")
    ap.add_argument("--tls", metavar="CA_FILE",
                    help="connect over TLS (SSL, or SASL_SSL with --sasl), the broker's "
                         "certificate checked against this PEM file's CAs")
    args = ap.parse_args()

    run = Run(args.broker, args.verbose)
    t0 = time.monotonic()
    clients: dict[str, Client] = {}
    for name in CLIENTS:
        if args.only and name not in args.only:
            continue
        try:
            clients[name] = FACTORIES[name](args.broker)
            clients[name].ca_file = args.tls
        except ImportError as e:
            if name in args.allow_missing:
                run.skip(name, "-", "all", f"not installed ({e}); allowed by --allow-missing")
            else:
                run.report(Result(name, "-", "installed", 0, "FAIL",
                                  f"not installed ({e}); pass --allow-missing {name} to skip it"))

    if args.sasl:
        password = os.environ.get("KWIRE_SASL_PASSWORD", "")
        if not password:
            print("--sasl: KWIRE_SASL_PASSWORD is not set", file=sys.stderr)
            return 2
        protocol = "SASL_SSL" if args.tls else "SASL_PLAINTEXT"
        for name, c in clients.items():
            for m in SASL_MECHANISMS:
                run.case(name, "none", f"{protocol} {m}: produce+consume",
                         lambda c=c, m=m: sasl_case(c, m, password))
                run.case(name, "none", f"{protocol} {m}: wrong password refused",
                         lambda c=c, m=m: sasl_refused_case(c, m, password))
        return summary(run, t0, args.broker)

    if "kcat" in clients:
        def meta():
            out = clients["kcat"].metadata()
            if "1 brokers:" not in out:
                raise CaseFailure(f"kcat -L: {out[:200]!r}")
            return 0, "1 broker listed"
        run.case("kcat", "-", "metadata (-L)", meta)

    written: dict = {}
    for name, c in clients.items():
        for z in c.compressions:
            run.case(name, z, "produce+consume", lambda c=c, z=z: basic(c, z, written))
    for (writer, z), (topic, sent, delivered) in written.items():
        reader = READER[writer]
        if reader not in clients:
            reader = next((n for n in clients if n != writer), None)
        if reader is None:
            continue
        run.case(reader, z, f"cross: reads {writer}", lambda r=clients[reader], t=topic, s=sent, d=delivered: cross(r, t, s, d))

    for name, c in clients.items():
        run.case(name, "none", "acks=0", lambda c=c: acks_case(c, 0, "none"))
        run.case(name, "zstd", "acks=all", lambda c=c: acks_case(c, -1, "zstd"))
        run.case(name, "lz4", "idempotent producer", lambda c=c: idempotent_case(c, "lz4"))
        run.case(name, "gzip", "fetch limits < batch size", lambda c=c: small_fetch_case(c, "gzip"))
        if name != "kcat":
            run.case(name, "none", "long-poll fetch", lambda c=c: long_poll_case(c))
            run.case(name, "snappy", "group subscribe+commit", lambda c=c: group_case(c, "snappy"))
        if hasattr(c, "offsets_for_times"):
            for z in ("none", "zstd"):
                run.case(name, z, "offsets for timestamps", lambda c=c, z=z: timestamps_case(c, z))
        if hasattr(c, "admin_describe"):
            run.case(name, "-", "admin: groups, configs, cluster", lambda c=c: admin_case(c))
        if hasattr(c, "admin_errors"):
            run.case(name, "-", "create/delete topic errors",
                     lambda c=c: (c.admin_errors(topic_name(c.name, "admin")), 0)[1])

    return summary(run, t0, args.broker)


def summary(run: Run, t0: float, broker: str) -> int:
    """Prints the count of each outcome and the failures: 1 if any case failed."""
    failed = [r for r in run.results if r.result == "FAIL"]
    passed = [r for r in run.results if r.result == "PASS"]
    skipped = [r for r in run.results if r.result == "SKIP"]
    print(f"\n{len(passed)} passed, {len(failed)} failed, {len(skipped)} skipped "
          f"in {time.monotonic() - t0:.1f}s against {broker}")
    for r in failed:
        print(f"FAILED: {r.client} {r.compression} {r.scenario}: {r.detail}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
