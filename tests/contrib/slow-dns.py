#!/usr/bin/env python3
"""slow-dns.py: a DNS server for tests that answers every A query with
127.0.0.1 (and every other type with no record), each answer held back by
--delay seconds, so that a resolver pointed at it takes that long.

    slow-dns.py --port 53 --delay 3 [--addr 127.0.0.1] [--log FILE]
                [--ready FILE]

Serves UDP on 127.0.0.1:PORT, one thread per query (the glibc resolver asks
A and AAAA at once), and appends one line per query to --log
("NAME TYPE"); --ready is created once the socket is bound. The wire format is read and written with struct, as RFC 1035
section 4 lays it out (header, question, answer RR); names in questions are
not compressed. Not for: anything but tests (no recursion, no TCP).
"""
import argparse
import socket
import struct
import sys
import threading
import time


def read_name(msg, off):
    labels = []
    while True:
        n = msg[off]
        off += 1
        if n == 0:
            return ".".join(labels), off
        if n & 0xC0:
            raise ValueError("compressed name in a question")
        labels.append(msg[off:off + n].decode("ascii", "replace"))
        off += n


def answer(query, addr):
    qid, flags, qd, _an, _ns, _ar = struct.unpack("!6H", query[:12])
    if qd != 1:
        raise ValueError("expected one question")
    name, off = read_name(query, 12)
    qtype, qclass = struct.unpack("!2H", query[off:off + 4])
    question = query[12:off + 4]
    rd = flags & 0x0100
    rrs = b""
    if qtype == 1 and qclass == 1:  # A IN
        rrs = struct.pack("!HHHIH", 0xC00C, 1, 1, 60, 4) + socket.inet_aton(addr)
    head = struct.pack("!6H", qid, 0x8000 | 0x0400 | rd | 0x0080, 1,
                       1 if rrs else 0, 0, 0)
    return name, qtype, head + question + rrs


def main():
    ap = argparse.ArgumentParser(description="slow DNS server for tests")
    ap.add_argument("--port", type=int, default=53)
    ap.add_argument("--delay", type=float, default=3.0)
    ap.add_argument("--addr", default="127.0.0.1")
    ap.add_argument("--log")
    ap.add_argument("--ready")
    a = ap.parse_args()
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", a.port))
    lock = threading.Lock()
    if a.ready:
        open(a.ready, "w").close()

    def serve(query, peer):
        try:
            name, qtype, reply = answer(query, a.addr)
        except (ValueError, struct.error, IndexError) as e:
            print("slow-dns: bad query from %s: %s" % (peer, e), file=sys.stderr)
            return
        if a.log:
            with lock, open(a.log, "a") as f:
                f.write("%s %d\n" % (name, qtype))
        time.sleep(a.delay)
        sock.sendto(reply, peer)

    while True:
        query, peer = sock.recvfrom(4096)
        threading.Thread(target=serve, args=(query, peer), daemon=True).start()


if __name__ == "__main__":
    main()
