#!/usr/bin/env python3
"""fakeredis: a scriptable fake Redis server for Arc Lamp's fault-injection
tests (arclamp-log/tests/test_redis_faults.py, and the extension's .phpt
tests, which start it as a script).

It speaks RESP2 on 127.0.0.1 / ::1 (a free port) or on a unix socket, records
every command each connection sends and answers according to a *behaviour*,
chosen for every new connection (`behaviour`), or per connection number
(`script`: the Nth connection accepted, 0-based, takes script[N]):

  normal          a tiny working Redis for what Arc Lamp uses: AUTH, SELECT,
                  CLIENT SETNAME, PING, SUBSCRIBE (+ publish() from the test),
                  XGROUP CREATE, XREADGROUP (COUNT, BLOCK, ">" or pending ids
                  per consumer), XACK (remembered in `acked`), XDEL, XADD
                  (MAXLEN accepted, not applied), PUBLISH (answers the
                  number of subscribers reached)
  malformed       the trigger command gets bytes hiredis cannot parse
  error           every command from the trigger on gets -ERR injected
  split           normal, but every reply is written one byte at a time
  never_complete  the trigger command gets the first half of its reply, never the rest
  close_mid_reply the same half, then the connection is closed
  silent          commands are read and recorded, never answered
  auth_fails      AUTH gets -WRONGPASS; the rest is normal
  select_fails    SELECT gets -ERR DB index is out of range; the rest is normal
  huge_array      the trigger command gets *2147483647 (or `huge_elements`)
                  then ":1" elements until `huge_limit` bytes (8 MiB) were
                  sent or the client closed, then the connection is closed

The *trigger* is the first command of the connection, or with `trigger=NAME`
the first command of that name, or the first for which `trigger(args)` is
true (library use); commands before it are answered normally. A reply cut
short leaves what the command did in place, as with a real Redis: entries an
XREADGROUP ">" delivered stay pending, but a SUBSCRIBE is not confirmed.

Library use (from pytest):

    with FakeRedis(behaviour="malformed") as fake:
        ... fake.port, fake.accepted, fake.commands(), fake.behaviour = "normal",
        fake.publish("excimer", b"..."), fake.add_entry("excimer", sample=b"..."),
        fake.acked ...

Script use (prints the port, or the socket path, then serves until killed):

    python3 fakeredis.py --port 0 --behaviour malformed --print-port

Standard library only. Threads: one accepting, one per connection; each
loop stops when stop() is called (the context manager does), and stop()
closes every socket and joins every thread.
"""

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time

BEHAVIOURS = ("normal", "malformed", "error", "split", "never_complete", "close_mid_reply",
              "silent", "auth_fails", "select_fails", "huge_array")

MAX_REQUEST = 64 << 20        # a connection buffering more than this is closed
SPLIT_PAUSE = 0.0005          # seconds between the bytes of a split reply
POLL = 0.05                   # how often blocked loops look at the stop flag


class Status(str):
    """A simple string reply (+OK)."""


class Error(str):
    """An error reply (-ERR ...)."""


NIL_ARRAY = object()          # *-1 (XREADGROUP with nothing after BLOCK)


def encode(value):
    """A Python value as RESP2 bytes: None is a nil bulk string."""
    if isinstance(value, Status):
        return b"+%s\r\n" % value.encode()
    if isinstance(value, Error):
        return b"-%s\r\n" % value.encode()
    if value is None:
        return b"$-1\r\n"
    if value is NIL_ARRAY:
        return b"*-1\r\n"
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return b":%d\r\n" % value
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, (bytes, bytearray)):
        return b"$%d\r\n%s\r\n" % (len(value), value)
    if isinstance(value, (list, tuple)):
        return b"*%d\r\n" % len(value) + b"".join(encode(v) for v in value)
    raise TypeError("cannot encode %r" % (value,))


def parse_commands(buf):
    """Complete commands (lists of bytes) at the start of buf, and the bytes
    used. Raises ValueError on anything but arrays of bulk strings."""
    cmds, pos = [], 0
    while True:
        end = buf.find(b"\r\n", pos)
        if end < 0:
            return cmds, pos
        if buf[pos:pos + 1] != b"*":
            raise ValueError("expected '*', got %r" % bytes(buf[pos:pos + 1]))
        n = int(buf[pos + 1:end])
        p, args = end + 2, []
        for _ in range(max(n, 0)):
            e = buf.find(b"\r\n", p)
            if e < 0:
                return cmds, pos
            if buf[p:p + 1] != b"$":
                raise ValueError("expected '$', got %r" % bytes(buf[p:p + 1]))
            size = int(buf[p + 1:e])
            if size < 0 or size > MAX_REQUEST:
                raise ValueError("bad bulk length %d" % size)
            if len(buf) < e + 2 + size + 2:
                return cmds, pos
            args.append(bytes(buf[e + 2:e + 2 + size]))
            p = e + 2 + size + 2
        cmds.append(args)
        pos = p


def id_key(entry_id):
    """'1700000000000-3' -> (1700000000000, 3), for ordering."""
    if isinstance(entry_id, bytes):
        entry_id = entry_id.decode()
    ms, _, seq = entry_id.partition("-")
    return (int(ms), int(seq or 0))


class Group:
    def __init__(self, last):
        self.last = last          # last delivered id, as a key tuple
        self.pending = {}         # id bytes -> consumer bytes (the PEL)


class Connection:
    """One accepted client: its commands and its behaviour."""

    def __init__(self, server, sock, number, behaviour):
        self.server = server
        self.sock = sock
        self.number = number
        self.behaviour = behaviour
        self.commands = []        # every command received, lists of bytes
        self.subscribed = []      # channels (bytes)
        self.db = 0
        self.authed = server.password is None
        self.triggered = False
        self.closed = False
        self.write_lock = threading.Lock()
        self.thread = threading.Thread(target=self._run, daemon=True,
                                       name="fakeredis-conn-%d" % number)

    # --- writing --------------------------------------------------------------

    def send(self, data):
        """Writes data (byte by byte with `split`); False once the peer is gone."""
        with self.write_lock:
            if self.closed:
                return False
            try:
                if self.behaviour == "split":
                    for i in range(len(data)):
                        if self.server.stopping.is_set():
                            return False
                        self.sock.sendall(data[i:i + 1])
                        time.sleep(SPLIT_PAUSE)
                else:
                    self.sock.sendall(data)
                return True
            except OSError:
                return False

    def close(self):
        with self.write_lock:
            if self.closed:
                return
            self.closed = True
            try:
                self.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.sock.close()

    # --- the loop ---------------------------------------------------------------

    def _run(self):
        buf = bytearray()
        try:
            self.sock.settimeout(POLL)
            while not self.server.stopping.is_set() and not self.closed:
                try:
                    chunk = self.sock.recv(65536)
                except socket.timeout:
                    continue
                except OSError:
                    break
                if not chunk:
                    break
                buf += chunk
                if len(buf) > MAX_REQUEST:
                    break
                try:
                    cmds, used = parse_commands(buf)
                except ValueError as exc:
                    self.send(encode(Error("ERR Protocol error: %s" % exc)))
                    break
                del buf[:used]
                for cmd in cmds:
                    if not cmd:
                        continue
                    with self.server.lock:
                        self.commands.append(cmd)
                    self.server._record(self, cmd)
                    if not self._answer(cmd) or self.closed:
                        return
        finally:
            self.close()

    def _answer(self, cmd):
        """Answers one command as the behaviour says; False to stop reading."""
        name = cmd[0].upper()
        b = self.behaviour
        trigger = self.server.trigger
        if trigger is None:
            matches = True
        elif callable(trigger):
            matches = bool(trigger(cmd))
        else:
            matches = name == trigger.upper().encode()
        fires = not self.triggered and matches
        if fires and b in ("malformed", "error", "never_complete", "close_mid_reply",
                           "huge_array"):
            self.triggered = True
        if b == "silent":
            return True
        if b == "error" and self.triggered:
            return self.send(encode(Error("ERR injected")))
        if fires and b == "malformed":
            self.send(b"!bogus\r\n")
            self.behaviour = "silent"  # nothing more: the stream is garbage anyway
            return True
        if fires and b == "huge_array":
            return self._huge_array()
        if b == "auth_fails" and name == b"AUTH":
            return self.send(encode(Error("WRONGPASS invalid username-password pair or "
                                          "user is disabled.")))
        if b == "select_fails" and name == b"SELECT":
            return self.send(encode(Error("ERR DB index is out of range")))
        reply = self.server._execute(self, cmd)
        if fires and b in ("never_complete", "close_mid_reply"):
            whole = b"".join(encode(r) for r in reply) if reply else encode(Status("OK"))
            self.send(whole[:max(1, len(whole) // 2)])
            with self.server.lock:
                self.subscribed = []  # never confirmed: publish() skips it
            if b == "close_mid_reply":
                self.close()
                return False
            self.behaviour = "silent"
            return True
        for r in reply:
            if not self.send(encode(r)):
                return False
        return True

    def _huge_array(self):
        if not self.send(b"*%d\r\n" % self.server.huge_elements):
            return False
        piece = b":1\r\n" * 4096
        sent = 0
        while sent < self.server.huge_limit and not self.server.stopping.is_set():
            if not self.send(piece):
                return False
            sent += len(piece)
        self.server.huge_bytes_sent = max(self.server.huge_bytes_sent, sent)
        self.close()
        return False


class FakeRedis:
    """The server. See the file head."""

    def __init__(self, behaviour="normal", script=(), host="127.0.0.1", port=0,
                 unix_path=None, password=None, username=None, trigger=None,
                 record_path=None, huge_elements=2147483647, huge_limit=8 << 20):
        for b in (behaviour,) + tuple(script):
            if b not in BEHAVIOURS:
                raise ValueError("unknown behaviour %r (known: %s)" % (b, ", ".join(BEHAVIOURS)))
        self.behaviour = behaviour
        self.script = list(script)
        self.password = password
        self.username = username
        self.trigger = trigger
        self.huge_elements = huge_elements
        self.huge_limit = huge_limit
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)   # new stream entries
        self.stopping = threading.Event()
        self.connections = []
        self.accept_times = []     # time.monotonic() of each accept
        self.streams = {}          # (db, key) -> list of [id bytes, fields list or None]
        self.groups = {}           # (db, key, group) -> Group
        self.acked = []            # (key, id) of every XACK that removed a pending entry
        self.huge_bytes_sent = 0
        self._seq = 0
        self._record_file = open(record_path, "a") if record_path else None
        self.unix_path = unix_path
        if unix_path:
            self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            self.listener.bind(unix_path)
            self.host, self.port = None, None
        else:
            family = socket.AF_INET6 if ":" in host else socket.AF_INET
            self.listener = socket.socket(family, socket.SOCK_STREAM)
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            self.listener.bind((host, port))
            self.host, self.port = host, self.listener.getsockname()[1]
        self.listener.listen(128)
        self.listener.settimeout(POLL)
        self._thread = threading.Thread(target=self._accept_loop, daemon=True,
                                        name="fakeredis-accept")
        self._thread.start()

    # --- life cycle ---------------------------------------------------------------

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        """Closes every socket and joins every thread (bounded)."""
        self.stopping.set()
        with self.changed:
            self.changed.notify_all()
        self._thread.join(timeout=5)
        self.listener.close()
        if self.unix_path:
            try:
                os.unlink(self.unix_path)
            except OSError:
                pass
        for c in list(self.connections):
            c.close()
        for c in list(self.connections):
            c.thread.join(timeout=5)
        if self._record_file:
            self._record_file.close()
            self._record_file = None

    def _accept_loop(self):
        while not self.stopping.is_set():
            try:
                sock, _ = self.listener.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            if sock.family != socket.AF_UNIX:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                n = len(self.connections)
                behaviour = self.script[n] if n < len(self.script) else self.behaviour
                conn = Connection(self, sock, n, behaviour)
                self.connections.append(conn)
                self.accept_times.append(time.monotonic())
            conn.thread.start()

    def _record(self, conn, cmd):
        if self._record_file:
            self._record_file.write(json.dumps(
                {"conn": conn.number, "cmd": [a.decode("utf-8", "replace") for a in cmd]}) + "\n")
            self._record_file.flush()

    # --- what the tests look at ------------------------------------------------------

    @property
    def accepted(self):
        with self.lock:
            return len(self.connections)

    def commands(self, name=None):
        """Every command received, in order per connection, all connections
        concatenated; only those named `name` when given."""
        with self.lock:
            out = [c for conn in self.connections for c in conn.commands]
        if name:
            out = [c for c in out if c[0].upper() == name.upper().encode()]
        return out

    def subscribers(self, channel):
        ch = channel.encode() if isinstance(channel, str) else channel
        with self.lock:
            return sum(1 for c in self.connections if not c.closed and ch in c.subscribed)

    def publish(self, channel, payload):
        """Sends ["message", channel, payload] to every subscriber; their number."""
        ch = channel.encode() if isinstance(channel, str) else channel
        with self.lock:
            subs = [c for c in self.connections if not c.closed and ch in c.subscribed]
        msg = encode([b"message", ch, payload])
        return sum(1 for c in subs if c.send(msg))

    def add_entry(self, key, db=0, **fields):
        """XADD key * field value ...; returns the id (bytes)."""
        k = key.encode() if isinstance(key, str) else key
        flat = []
        for f, v in fields.items():
            flat += [f.encode(), v if isinstance(v, bytes) else str(v).encode()]
        with self.changed:
            entry_id = self._next_id()
            self.streams.setdefault((db, k), []).append([entry_id, flat])
            self.changed.notify_all()
        return entry_id

    def pending(self, key, group, db=0):
        """{id: consumer} of the group's pending entries."""
        k = key.encode() if isinstance(key, str) else key
        g = group.encode() if isinstance(group, str) else group
        with self.lock:
            grp = self.groups.get((db, k, g))
            return dict(grp.pending) if grp else {}

    # --- normal Redis ----------------------------------------------------------------

    def _next_id(self):
        self._seq += 1
        return b"%d-%d" % (int(time.time() * 1000), self._seq)

    def _execute(self, conn, cmd):
        """The replies (a list: SUBSCRIBE has one per channel) of a working Redis."""
        name = cmd[0].upper()
        args = cmd[1:]
        if name == b"AUTH":
            if self.password is None:
                return [Error("ERR AUTH <password> called without any password configured "
                              "for the default user. Are you sure your configuration is correct?")]
            user = args[0].decode() if len(args) == 2 else "default"
            if args and args[-1].decode() == self.password and user == (self.username or "default"):
                conn.authed = True
                return [Status("OK")]
            return [Error("WRONGPASS invalid username-password pair or user is disabled.")]
        if not conn.authed and name not in (b"QUIT",):
            return [Error("NOAUTH Authentication required.")]
        if name == b"PING":
            if conn.subscribed:
                return [[b"pong", args[0] if args else b""]]
            return [args[0] if args else Status("PONG")]
        if name == b"SELECT":
            try:
                db = int(args[0])
            except (IndexError, ValueError):
                return [Error("ERR value is not an integer or out of range")]
            if not 0 <= db < 16:
                return [Error("ERR DB index is out of range")]
            conn.db = db
            return [Status("OK")]
        if name == b"CLIENT":
            return [Status("OK")]
        if name == b"QUIT":
            return [Status("OK")]
        if name == b"SUBSCRIBE":
            out = []
            with self.lock:
                for ch in args:
                    if ch not in conn.subscribed:
                        conn.subscribed.append(ch)
                    out.append([b"subscribe", ch, len(conn.subscribed)])
            return out
        if name == b"XADD":
            # [MAXLEN [~|=] N] is accepted and ignored (the extension caps its streams)
            rest = list(args[1:])
            if len(rest) >= 2 and rest[0].upper() == b"MAXLEN":
                rest = rest[3:] if rest[1] in (b"~", b"=") else rest[2:]
            if len(rest) < 3 or rest[0] != b"*" or len(rest) % 2 == 0:
                return [Error("ERR only XADD key [MAXLEN [~] N] * field value ... is supported here")]
            with self.changed:
                entry_id = self._next_id()
                self.streams.setdefault((conn.db, args[0]), []).append([entry_id, list(rest[1:])])
                self.changed.notify_all()
            return [entry_id]
        if name == b"PUBLISH":
            if len(args) != 2:
                return [Error("ERR wrong number of arguments for 'publish' command")]
            return [self.publish(args[0], args[1])]
        if name == b"XGROUP":
            return [self._xgroup(conn, args)]
        if name == b"XREADGROUP":
            return [self._xreadgroup(conn, args)]
        if name == b"XACK":
            return [self._xack(conn, args)]
        if name == b"XDEL":
            return [self._xdel(conn, args)]
        return [Error("ERR unknown command '%s'" % cmd[0].decode("utf-8", "replace"))]

    def _xgroup(self, conn, args):
        if len(args) < 4 or args[0].upper() != b"CREATE":
            return Error("ERR only XGROUP CREATE key group id [MKSTREAM] is supported here")
        key, group, start = args[1], args[2], args[3]
        mkstream = any(a.upper() == b"MKSTREAM" for a in args[4:])
        with self.lock:
            if (conn.db, key) not in self.streams:
                if not mkstream:
                    return Error("ERR The XGROUP subcommand requires the key to exist. Note "
                                 "that for CREATE you may want to use the MKSTREAM option to "
                                 "create an empty stream automatically.")
                self.streams[(conn.db, key)] = []
            if (conn.db, key, group) in self.groups:
                return Error("BUSYGROUP Consumer Group name already exists")
            entries = self.streams[(conn.db, key)]
            if start == b"$":
                last = id_key(entries[-1][0]) if entries else (0, 0)
            else:
                last = id_key(start)
            self.groups[(conn.db, key, group)] = Group(last)
        return Status("OK")

    def _xreadgroup(self, conn, args):
        try:
            if args[0].upper() != b"GROUP":
                raise ValueError
            group, consumer = args[1], args[2]
            count, block, i = None, None, 3
            while args[i].upper() != b"STREAMS":
                opt = args[i].upper()
                if opt == b"COUNT":
                    count, i = int(args[i + 1]), i + 2
                elif opt == b"BLOCK":
                    block, i = int(args[i + 1]), i + 2
                elif opt == b"NOACK":
                    i += 1
                else:
                    raise ValueError
            rest = args[i + 1:]
            if not rest or len(rest) % 2:
                raise ValueError
        except (IndexError, ValueError):
            return Error("ERR syntax error")
        keys, ids = rest[:len(rest) // 2], rest[len(rest) // 2:]
        deadline = time.monotonic() + block / 1000.0 if block is not None else None
        with self.changed:
            while True:
                result = []
                for key, want in zip(keys, ids):
                    grp = self.groups.get((conn.db, key, group))
                    if grp is None:
                        return Error("NOGROUP No such key '%s' or consumer group '%s' in "
                                     "XREADGROUP with GROUP option" % (key.decode(), group.decode()))
                    got = self._read_group(conn.db, key, grp, consumer, want, count)
                    if got is not None:
                        result.append([key, got])
                if result or deadline is None or self.stopping.is_set():
                    return result if result else NIL_ARRAY
                left = deadline - time.monotonic()
                if left <= 0:
                    return NIL_ARRAY
                self.changed.wait(min(left, POLL))

    def _read_group(self, db, key, grp, consumer, want, count):
        """Entries for one key (lock held): None when a '>' read found nothing."""
        entries = self.streams.get((db, key), [])
        limit = count if count and count > 0 else len(entries) + len(grp.pending)
        if want == b">":
            out = []
            for entry_id, fields in entries:
                if len(out) >= limit:
                    break
                if id_key(entry_id) > grp.last:
                    grp.last = id_key(entry_id)
                    grp.pending[entry_id] = consumer
                    out.append([entry_id, fields])
            return out or None
        after = id_key(want)
        mine = sorted((i for i, c in grp.pending.items() if c == consumer and id_key(i) > after),
                      key=id_key)[:limit]
        present = {e[0]: e[1] for e in entries}
        return [[i, present.get(i)] for i in mine]   # a deleted entry has nil fields

    def _xack(self, conn, args):
        if len(args) < 3:
            return Error("ERR wrong number of arguments for 'xack' command")
        key, group = args[0], args[1]
        n = 0
        with self.lock:
            grp = self.groups.get((conn.db, key, group))
            for entry_id in args[2:]:
                if grp is not None and grp.pending.pop(entry_id, None) is not None:
                    self.acked.append((key, entry_id))
                    n += 1
        return n

    def _xdel(self, conn, args):
        if len(args) < 2:
            return Error("ERR wrong number of arguments for 'xdel' command")
        gone = set(args[1:])
        with self.lock:
            entries = self.streams.get((conn.db, args[0]), [])
            kept = [e for e in entries if e[0] not in gone]
            self.streams[(conn.db, args[0])] = kept
        return len(entries) - len(kept)


def main(argv=None):
    p = argparse.ArgumentParser(description="A scriptable fake Redis server (RESP2) for "
                                "fault-injection tests.")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1 or ::1)")
    p.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    p.add_argument("--unix", metavar="PATH", help="listen on this unix socket instead of TCP")
    p.add_argument("--behaviour", "--behavior", default="normal", choices=BEHAVIOURS,
                   help="how every connection is answered")
    p.add_argument("--script", default="", metavar="B1,B2,...",
                   help="behaviours of the first connections, in order, then --behaviour")
    p.add_argument("--trigger", metavar="COMMAND",
                   help="the fault starts at the first command of this name "
                        "(default: the first command)")
    p.add_argument("--huge-elements", type=int, default=2147483647, metavar="N",
                   help="the array header huge_array sends")
    p.add_argument("--password", help="require AUTH with this password")
    p.add_argument("--username", help="the user AUTH must name (with --password)")
    p.add_argument("--print-port", action="store_true",
                   help="print the port (or the socket path) on stdout once listening")
    p.add_argument("--record", metavar="FILE",
                   help="append every command received to FILE, one JSON object a line")
    a = p.parse_args(argv)
    script = [s for s in a.script.split(",") if s]
    for s in script:
        if s not in BEHAVIOURS:
            p.error("--script: unknown behaviour %r" % s)
    server = FakeRedis(behaviour=a.behaviour, script=script, host=a.host, port=a.port,
                       unix_path=a.unix, password=a.password, username=a.username,
                       trigger=a.trigger, record_path=a.record, huge_elements=a.huge_elements)
    done = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, lambda *_: done.set())
    if a.print_port:
        print(a.unix if a.unix else server.port, flush=True)
    try:
        while not done.wait(0.5):
            pass
    finally:
        server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
