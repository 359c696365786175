"""A deliberately hostile HTTP/2 (h2c, prior knowledge) client.

Frames are written by hand (9-byte frame header + payload) and header blocks
are HPACK "literal without indexing, new name" fields, so that one encoded
block can be reused for every stream and the client is not held back by any
local protocol bookkeeping: it opens as many streams as it likes, whatever
SETTINGS_MAX_CONCURRENT_STREAMS the server announces. Only the incoming side
is decoded (with the `hpack` package, Debian's python3-hpack), to count
what the server answers: RST_STREAM codes, GOAWAY, grpc-status of trailers.

Every socket is non-blocking and is only ever connected to 127.0.0.1.
"""

import select
import socket
import struct
import time
import urllib.parse
from collections import Counter

import hpack

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

DATA = 0x0
HEADERS = 0x1
PRIORITY = 0x2
RST_STREAM = 0x3
SETTINGS = 0x4
PUSH_PROMISE = 0x5
PING = 0x6
GOAWAY = 0x7
WINDOW_UPDATE = 0x8
CONTINUATION = 0x9
FRAME_NAMES = {DATA: "DATA", HEADERS: "HEADERS", PRIORITY: "PRIORITY",
               RST_STREAM: "RST_STREAM", SETTINGS: "SETTINGS",
               PUSH_PROMISE: "PUSH_PROMISE", PING: "PING", GOAWAY: "GOAWAY",
               WINDOW_UPDATE: "WINDOW_UPDATE", CONTINUATION: "CONTINUATION"}

FLAG_END_STREAM = 0x1
FLAG_ACK = 0x1
FLAG_END_HEADERS = 0x4
FLAG_PADDED = 0x8
FLAG_PRIORITY = 0x20

SETTINGS_HEADER_TABLE_SIZE = 0x1
SETTINGS_ENABLE_PUSH = 0x2
SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
SETTINGS_INITIAL_WINDOW_SIZE = 0x4
SETTINGS_MAX_FRAME_SIZE = 0x5
SETTINGS_MAX_HEADER_LIST_SIZE = 0x6
SETTING_NAMES = {1: "HEADER_TABLE_SIZE", 2: "ENABLE_PUSH",
                 3: "MAX_CONCURRENT_STREAMS", 4: "INITIAL_WINDOW_SIZE",
                 5: "MAX_FRAME_SIZE", 6: "MAX_HEADER_LIST_SIZE"}

ERROR_NAMES = {0: "NO_ERROR", 1: "PROTOCOL_ERROR", 2: "INTERNAL_ERROR",
               3: "FLOW_CONTROL_ERROR", 4: "SETTINGS_TIMEOUT",
               5: "STREAM_CLOSED", 6: "FRAME_SIZE_ERROR",
               7: "REFUSED_STREAM", 8: "CANCEL", 9: "COMPRESSION_ERROR",
               10: "CONNECT_ERROR", 11: "ENHANCE_YOUR_CALM",
               12: "INADEQUATE_SECURITY", 13: "HTTP_1_1_REQUIRED"}
CANCEL = 0x8

GRPC_CODE_NAMES = {0: "OK", 1: "CANCELLED", 2: "UNKNOWN",
                   3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED",
                   5: "NOT_FOUND", 6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED",
                   8: "RESOURCE_EXHAUSTED", 9: "FAILED_PRECONDITION",
                   10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED",
                   13: "INTERNAL", 14: "UNAVAILABLE", 15: "DATA_LOSS",
                   16: "UNAUTHENTICATED"}

MAX_WINDOW = 2 ** 31 - 1
MAX_STREAM_ID = 2 ** 31 - 1
# The largest frame payload we accept from the server before calling the
# connection broken (the server may not send more than 16 MiB anyway).
MAX_INCOMING_FRAME = 1 << 24
# Credit the server's DATA back (connection WINDOW_UPDATE) in steps of this.
WINDOW_CREDIT_STEP = 1 << 26
# Response bodies kept per tracked stream (the rest is only counted).
MAX_KEPT_BODY = 1 << 16


def frame(ftype, flags, stream_id, payload=b""):
    n = len(payload)
    return struct.pack(">BHBBI", n >> 16, n & 0xFFFF, ftype, flags,
                       stream_id & 0x7FFFFFFF) + payload


def settings_frame(pairs):
    return frame(SETTINGS, 0, 0,
                 b"".join(struct.pack(">HI", k, v) for k, v in pairs))


def rst_stream_frame(stream_id, code=CANCEL):
    return frame(RST_STREAM, 0, stream_id, struct.pack(">I", code))


def window_update_frame(stream_id, increment):
    return frame(WINDOW_UPDATE, 0, stream_id, struct.pack(">I", increment))


def grpc_frame(message):
    """A gRPC length-prefixed message (uncompressed)."""
    return b"\x00" + struct.pack(">I", len(message)) + message


def _hpack_int(value, prefix_bits, high_bits=0):
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([high_bits | value])
    out = bytearray([high_bits | limit])
    value -= limit
    while value >= 128:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _hpack_string(text):
    raw = text.encode("ascii")
    return _hpack_int(len(raw), 7) + raw


def header_block(headers):
    """HPACK block of literal fields without indexing and with new names:
    it leaves the decoder's dynamic table alone, so it may be sent again and
    again on any connection."""
    return b"".join(b"\x00" + _hpack_string(name) + _hpack_string(value)
                    for name, value in headers)


def grpc_request_headers(port, path, extra=()):
    return [(":method", "POST"), (":scheme", "http"), (":path", path),
            (":authority", "127.0.0.1:%d" % port),
            ("content-type", "application/grpc"), ("te", "trailers")
            ] + list(extra)


class Stream:
    """What one tracked stream did and got."""

    __slots__ = ("sid", "opened_at", "send_window", "body", "body_off",
                 "hold", "chunk", "interval", "next_chunk_at", "upload_done_at",
                 "headers_at", "http_status", "grpc_status", "grpc_message",
                 "rst_code", "rst_at", "ended_at", "data_bytes", "data",
                 "goaway_refused_at", "conn_closed_at")

    def __init__(self, sid, send_window, now):
        self.sid = sid
        self.opened_at = now
        self.send_window = send_window
        self.body = None
        self.body_off = 0
        self.hold = 0
        self.chunk = 0
        self.interval = 0.0
        self.next_chunk_at = 0.0
        self.upload_done_at = None
        self.headers_at = None
        self.http_status = None
        self.grpc_status = None
        self.grpc_message = None
        self.rst_code = None
        self.rst_at = None
        self.ended_at = None
        self.data_bytes = 0
        self.data = bytearray()
        self.goaway_refused_at = None
        self.conn_closed_at = None

    @property
    def uploading(self):
        """Body bytes left to send now (not counting those held back)."""
        return self.body is not None and \
            self.body_off < len(self.body) - self.hold

    def outcome(self):
        """(name, time) of how the stream ended, or ("open", None)."""
        if self.grpc_status is not None:
            return ("status:" + GRPC_CODE_NAMES.get(self.grpc_status,
                                                   str(self.grpc_status)),
                    self.ended_at or self.headers_at)
        if self.rst_code is not None:
            return ("rst:" + ERROR_NAMES.get(self.rst_code,
                                             str(self.rst_code)), self.rst_at)
        if self.goaway_refused_at is not None:
            return ("goaway-refused", self.goaway_refused_at)
        if self.conn_closed_at is not None:
            return ("conn-closed", self.conn_closed_at)
        return ("open", None)


class Conn:
    """One HTTP/2 client connection to 127.0.0.1:port.

    decode: HPACK-decode the server's header blocks (grpc-status counts).
    track: keep a Stream per opened stream (for the few-stream cases only).
    """

    def __init__(self, port, decode=True, track=False, ack_settings=True,
                 ack_pings=True, connect_timeout=5.0):
        self.port = port
        self.sock = socket.create_connection(("127.0.0.1", port),
                                             timeout=connect_timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock.setblocking(False)
        self.fd = self.sock.fileno()
        self.opened_at = time.monotonic()
        self.ack_settings = ack_settings
        self.ack_pings = ack_pings
        self.out = bytearray()
        self.inbuf = bytearray()
        self.next_sid = 1
        self.streams_opened = 0
        self.send_window = 65535
        self.peer_initial_window = 65535
        self.peer_max_frame = 16384
        self.peer_settings = {}
        self.frames_in = Counter()
        self.rst_codes = Counter()
        self.grpc_statuses = Counter()
        self.grpc_messages = Counter()
        self.goaways = []
        self.first_frame_at = None
        self.closed_at = None
        self.close_reason = None
        self.bytes_in = 0
        self.bytes_out = 0
        self.data_in = 0
        self.decode_errors = 0
        self._credit = 0
        self._hdr = None
        self.decoder = hpack.Decoder() if decode else None
        if self.decoder is not None:
            self.decoder.max_header_list_size = 1 << 20
        self.streams = {} if track else None

    # --- sending ---------------------------------------------------------

    def start(self, settings=None, big_window=True):
        """Preface and SETTINGS (and a large receive window by default)."""
        if settings is None:
            settings = [(SETTINGS_ENABLE_PUSH, 0)]
            if big_window:
                settings.append((SETTINGS_INITIAL_WINDOW_SIZE, MAX_WINDOW))
        self.out += PREFACE + settings_frame(settings)
        if big_window:
            self.out += window_update_frame(0, MAX_WINDOW - 65535)

    def open_stream(self, block, end_stream=False):
        sid = self.next_sid
        self.next_sid += 2
        self.streams_opened += 1
        flags = FLAG_END_HEADERS | (FLAG_END_STREAM if end_stream else 0)
        self.out += frame(HEADERS, flags, sid, block)
        if self.streams is not None:
            self.streams[sid] = Stream(sid, self.peer_initial_window,
                                       time.monotonic())
        return sid

    def flood(self, count, block, data=None, rst=False):
        """Queues `count` new streams at once: HEADERS (+ one DATA frame with
        END_STREAM when `data`) (+ RST_STREAM(CANCEL) when `rst`). Streams are
        not tracked. Returns the number queued (fewer near the id limit)."""
        count = min(count, (MAX_STREAM_ID - self.next_sid) // 2)
        if count <= 0:
            return 0
        n = len(block)
        h_prefix = struct.pack(">BHBB", n >> 16, n & 0xFFFF, HEADERS,
                               FLAG_END_HEADERS)
        if data is not None:
            d_prefix = struct.pack(">BHBB", len(data) >> 16,
                                   len(data) & 0xFFFF, DATA, FLAG_END_STREAM)
        r_prefix = struct.pack(">BHBB", 0, 4, RST_STREAM, 0)
        r_payload = struct.pack(">I", CANCEL)
        parts = []
        append = parts.append
        sid = self.next_sid
        for _ in range(count):
            sid_bytes = sid.to_bytes(4, "big")
            append(h_prefix)
            append(sid_bytes)
            append(block)
            if data is not None:
                append(d_prefix)
                append(sid_bytes)
                append(data)
            if rst:
                append(r_prefix)
                append(sid_bytes)
                append(r_payload)
            sid += 2
        self.out += b"".join(parts)
        self.next_sid = sid
        self.streams_opened += count
        if data is not None:
            self.send_window -= len(data) * count
        return count

    def reset_stream(self, sid, code=CANCEL):
        self.out += rst_stream_frame(sid, code)

    def start_upload(self, sid, body, chunk=16384, interval=0.0, hold=0):
        """Sends `body` on tracked stream `sid` as DATA frames of at most
        `chunk` bytes, one every `interval` seconds (0: as fast as flow
        control allows); the last one carries END_STREAM. The last `hold`
        bytes wait for release_uploads()."""
        st = self.streams[sid]
        st.body = body
        st.body_off = 0
        st.hold = hold
        st.chunk = chunk
        st.interval = interval
        st.next_chunk_at = time.monotonic()

    def service_uploads(self, high_water=1 << 18):
        """Queues whatever DATA the uploads may send now."""
        if self.streams is None or self.closed_at is not None:
            return
        now = time.monotonic()
        for st in self.streams.values():
            if (not st.uploading or st.rst_code is not None
                    or st.goaway_refused_at is not None):
                continue
            while (st.uploading and now >= st.next_chunk_at
                   and len(self.out) < high_water):
                size = min(st.chunk, len(st.body) - st.hold - st.body_off,
                           self.send_window, st.send_window,
                           self.peer_max_frame)
                if size <= 0:
                    break
                piece = st.body[st.body_off:st.body_off + size]
                st.body_off += size
                last = st.body_off >= len(st.body)
                self.out += frame(DATA, FLAG_END_STREAM if last else 0,
                                  st.sid, piece)
                self.send_window -= size
                st.send_window -= size
                if last:
                    st.upload_done_at = now  # Queued (the kernel: flush).
                if st.interval > 0:
                    st.next_chunk_at = now + st.interval
                    break

    def release_uploads(self):
        for st in (self.streams or {}).values():
            st.hold = 0

    def uploads_pending(self):
        """Tracked streams whose body is not yet all in the kernel."""
        if self.streams is None:
            return 0
        pending = sum(1 for st in self.streams.values() if st.uploading
                      and st.rst_code is None
                      and st.goaway_refused_at is None)
        return pending + (1 if self.out and self.closed_at is None else 0)

    def flush(self):
        if not self.out or self.closed_at is not None:
            return
        try:
            n = self.sock.send(self.out)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as e:
            self._close("send: " + (e.strerror or str(e)))
            return
        del self.out[:n]
        self.bytes_out += n

    # --- receiving -------------------------------------------------------

    @property
    def closed(self):
        return self.closed_at is not None

    def read(self, max_reads=8):
        if self.closed_at is not None:
            return
        for _ in range(max_reads):
            try:
                data = self.sock.recv(1 << 18)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as e:
                self._close("recv: " + (e.strerror or str(e)))
                break
            if not data:
                self._close("EOF")
                break
            self.bytes_in += len(data)
            self.inbuf += data
            if len(data) < (1 << 18):
                break
        self._parse()

    def _parse(self):
        buf = self.inbuf
        pos = 0
        end = len(buf)
        while end - pos >= 9:
            length = (buf[pos] << 16) | (buf[pos + 1] << 8) | buf[pos + 2]
            if length > MAX_INCOMING_FRAME:
                self._close("bad frame length %d" % length)
                break
            if end - pos < 9 + length:
                break
            ftype = buf[pos + 3]
            flags = buf[pos + 4]
            sid = int.from_bytes(buf[pos + 5:pos + 9], "big") & 0x7FFFFFFF
            payload = bytes(buf[pos + 9:pos + 9 + length])
            pos += 9 + length
            self._frame(ftype, flags, sid, payload)
        if pos:
            del buf[:pos]

    def _frame(self, ftype, flags, sid, payload):
        now = time.monotonic()
        if self.first_frame_at is None:
            self.first_frame_at = now
        self.frames_in[FRAME_NAMES.get(ftype, "type%d" % ftype)] += 1
        st = self.streams.get(sid) if self.streams is not None else None
        if ftype == DATA:
            self.data_in += len(payload)
            self._credit += len(payload)
            if self._credit >= WINDOW_CREDIT_STEP:
                self.out += window_update_frame(0, self._credit)
                self._credit = 0
            if st is not None:
                body = self._unpad(flags, payload)
                st.data_bytes += len(body)
                if len(st.data) < MAX_KEPT_BODY:
                    st.data += body[:MAX_KEPT_BODY - len(st.data)]
                if flags & FLAG_END_STREAM:
                    st.ended_at = now
        elif ftype == HEADERS:
            block = self._unpad(flags, payload)
            if flags & FLAG_PRIORITY:
                block = block[5:]
            if flags & FLAG_END_HEADERS:
                self._headers(sid, flags, block, now)
            else:
                self._hdr = (sid, flags, bytearray(block))
        elif ftype == CONTINUATION:
            if self._hdr is not None and self._hdr[0] == sid:
                self._hdr[2].extend(payload)
                if flags & FLAG_END_HEADERS:
                    hsid, hflags, block = self._hdr
                    self._hdr = None
                    self._headers(hsid, hflags, bytes(block), now)
        elif ftype == RST_STREAM:
            code = struct.unpack(">I", payload[:4])[0] if len(payload) >= 4 \
                else -1
            self.rst_codes[ERROR_NAMES.get(code, str(code))] += 1
            if st is not None and st.rst_code is None:
                st.rst_code = code
                st.rst_at = now
        elif ftype == SETTINGS:
            if flags & FLAG_ACK:
                self.frames_in["SETTINGS_ACK"] += 1
                return
            for off in range(0, len(payload) - 5, 6):
                key, value = struct.unpack(">HI", payload[off:off + 6])
                self.peer_settings[SETTING_NAMES.get(key, str(key))] = value
                if key == SETTINGS_INITIAL_WINDOW_SIZE:
                    delta = value - self.peer_initial_window
                    self.peer_initial_window = value
                    if self.streams is not None:
                        for s in self.streams.values():
                            s.send_window += delta
                elif key == SETTINGS_MAX_FRAME_SIZE:
                    self.peer_max_frame = value
            if self.ack_settings:
                self.out += frame(SETTINGS, FLAG_ACK, 0)
        elif ftype == PING:
            if not flags & FLAG_ACK and self.ack_pings:
                self.out += frame(PING, FLAG_ACK, 0, payload)
        elif ftype == GOAWAY:
            last_sid = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            code = int.from_bytes(payload[4:8], "big")
            self.goaways.append((now, last_sid,
                                 ERROR_NAMES.get(code, str(code)),
                                 payload[8:200].decode("latin-1")))
            if self.streams is not None:
                for s in self.streams.values():
                    if s.sid > last_sid and s.goaway_refused_at is None:
                        s.goaway_refused_at = now
        elif ftype == WINDOW_UPDATE:
            inc = int.from_bytes(payload[:4], "big") & 0x7FFFFFFF
            if sid == 0:
                self.send_window += inc
            elif st is not None:
                st.send_window += inc

    @staticmethod
    def _unpad(flags, payload):
        if flags & FLAG_PADDED and payload:
            pad = payload[0]
            return payload[1:len(payload) - pad]
        return payload

    def _headers(self, sid, flags, block, now):
        headers = None
        if self.decoder is not None:
            try:
                headers = self.decoder.decode(block, raw=True)
            except Exception:  # noqa: BLE001 - any HPACK failure.
                self.decode_errors += 1
                self.decoder = None
        st = self.streams.get(sid) if self.streams is not None else None
        if st is not None and st.headers_at is None:
            st.headers_at = now
        if flags & FLAG_END_STREAM and st is not None:
            st.ended_at = now
        if not headers:
            return
        status = message = None
        for name, value in headers:
            if name == b"grpc-status":
                try:
                    status = int(value)
                except ValueError:
                    status = -1
            elif name == b"grpc-message":
                message = urllib.parse.unquote(value.decode("latin-1"))
            elif name == b":status" and st is not None:
                st.http_status = value.decode("latin-1")
        if status is not None:
            name = GRPC_CODE_NAMES.get(status, str(status))
            self.grpc_statuses[name] += 1
            if message and len(self.grpc_messages) < 20:
                self.grpc_messages[name + ": " + message[:120]] += 1
            if st is not None:
                st.grpc_status = status
                st.grpc_message = message

    def _close(self, reason):
        if self.closed_at is not None:
            return
        self.closed_at = time.monotonic()
        self.close_reason = reason
        try:
            self.sock.close()
        except OSError:
            pass
        if self.streams is not None:
            for st in self.streams.values():
                if st.conn_closed_at is None:
                    st.conn_closed_at = self.closed_at

    def close(self, reason="closed by client"):
        self._close(reason)


def pump(conns, timeout):
    """One round of I/O on every open connection: send what is queued,
    wait up to `timeout` seconds for readability (or writability where
    something is queued), read and parse."""
    poller = select.poll()
    by_fd = {}
    for c in conns:
        if c.closed_at is not None:
            continue
        c.flush()
        if c.closed_at is not None:
            continue
        mask = select.POLLIN | (select.POLLOUT if c.out else 0)
        poller.register(c.fd, mask)
        by_fd[c.fd] = c
    if not by_fd:
        time.sleep(min(timeout, 0.05))
        return
    for fd, events in poller.poll(max(0, int(timeout * 1000))):
        c = by_fd[fd]
        if events & (select.POLLIN | select.POLLHUP | select.POLLERR):
            c.read()
        if events & select.POLLOUT and c.closed_at is None:
            c.flush()


class ConnStats:
    """Counters summed over connections (also closed and replaced ones)."""

    def __init__(self):
        self.conns = 0
        self.closed_by_server = 0
        self.close_reasons = Counter()
        self.streams_opened = 0
        self.frames_in = Counter()
        self.rst_codes = Counter()
        self.grpc_statuses = Counter()
        self.grpc_messages = Counter()
        self.goaway_codes = Counter()
        self.goaway_samples = []
        self.bytes_out = 0
        self.bytes_in = 0
        self.decode_errors = 0
        self.peer_settings = {}

    def absorb(self, c):
        self.conns += 1
        if c.closed_at is not None and c.close_reason not in (
                "closed by client", None):
            self.closed_by_server += 1
            self.close_reasons[c.close_reason] += 1
        self.streams_opened += c.streams_opened
        self.frames_in.update(c.frames_in)
        self.rst_codes.update(c.rst_codes)
        self.grpc_statuses.update(c.grpc_statuses)
        for k, v in c.grpc_messages.items():
            if k in self.grpc_messages or len(self.grpc_messages) < 20:
                self.grpc_messages[k] += v
        for t, last_sid, code, debug in c.goaways:
            self.goaway_codes[code] += 1
            if len(self.goaway_samples) < 5:
                self.goaway_samples.append({"last_stream_id": last_sid,
                                            "code": code, "debug": debug,
                                            "after_s": round(
                                                t - c.opened_at, 3)})
        self.bytes_out += c.bytes_out
        self.bytes_in += c.bytes_in
        self.decode_errors += c.decode_errors
        if c.peer_settings and not self.peer_settings:
            self.peer_settings = dict(c.peer_settings)

    def figures(self):
        return {
            "connections": self.conns,
            "closed_by_server": self.closed_by_server,
            "close_reasons": dict(self.close_reasons),
            "streams_opened": self.streams_opened,
            "frames_received": dict(self.frames_in),
            "rst_received": dict(self.rst_codes),
            "grpc_status_received": dict(self.grpc_statuses),
            "grpc_messages": dict(self.grpc_messages),
            "goaway_received": dict(self.goaway_codes),
            "goaway_samples": self.goaway_samples,
            "server_settings": self.peer_settings,
            "mib_sent": round(self.bytes_out / 2 ** 20, 1),
            "mib_received": round(self.bytes_in / 2 ** 20, 1),
            "hpack_decode_errors": self.decode_errors,
        }
