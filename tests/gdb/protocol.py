#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bad input for Umbra's gdb stub, on the raw protocol: malformed packets, bad checksums, huge
lengths, unmapped and non-guest addresses, then a disconnect in the middle of a packet.
Usage: protocol.py PORT. Prints "PROTOCOL OK" or "PROTOCOL FAIL: why"; exits 0 or 1."""
import socket, sys, time

port = int(sys.argv[1])
s = socket.create_connection(("127.0.0.1", port), timeout=30)
buf = b""

def recv_until(pred, what):
    global buf
    end = time.time() + 30
    while not pred(buf):
        if time.time() > end:
            fail("no %s (got %r)" % (what, buf[-200:]))
        chunk = s.recv(65536)
        if not chunk:
            fail("connection closed waiting for %s" % what)
        buf += chunk

def fail(why):
    print("PROTOCOL FAIL: " + why)
    sys.exit(1)

def frame(data):
    return b"$" + data + b"#%02x" % (sum(data) & 0xff)

def packet(data):
    """Sends a good packet, returns the reply's data (after its '+' ack)."""
    global buf
    s.sendall(frame(data))
    recv_until(lambda b: b"#" in b[b.find(b"$"):] and len(b) >= b.find(b"#", b.find(b"$")) + 3 and b.find(b"$") >= 0, "reply to %r" % data)
    start = buf.index(b"$")
    end = buf.index(b"#", start)
    if b"+" not in buf[:start]:
        fail("no ack before the reply to %r" % data)
    reply = buf[start + 1:end]
    buf = buf[end + 3:]
    s.sendall(b"+")
    return reply

def expect(data, want, exact=True):
    r = packet(data)
    if (r != want) if exact else (not r.startswith(want)):
        fail("%r answered %r, expected %r" % (data, r, want))
    print("ok %-40s -> %s" % (data.decode(errors="replace")[:40], r.decode(errors="replace")[:40]))
    return r

# Bytes sent just as QEMU's socket comes up can be lost (gdb resends too): ask until answered.
s.settimeout(1)
for _ in range(60):
    s.sendall(frame(b"?"))
    try:
        buf += s.recv(65536)
    except socket.timeout:
        continue
    if b"#" in buf:
        break
else:
    fail("the stub never answered")
time.sleep(0.5)
try:
    s.recv(65536)
except socket.timeout:
    pass
s.sendall(b"+")
s.settimeout(30)
buf = b""
# A bad checksum is refused with '-'.
s.sendall(b"$g#00")
recv_until(lambda b: b"-" in b, "nack for a bad checksum")
buf = b""
print("ok bad checksum -> -")
# A checksum that is not hex, likewise.
s.sendall(b"$g#zz")
recv_until(lambda b: b"-" in b, "nack for a non-hex checksum")
buf = b""
print("ok non-hex checksum -> -")
# A packet longer than PacketSize: refused, the stub resynchronizes on the next '$'.
s.sendall(frame(b"m" + b"0" * 10000))
recv_until(lambda b: b"-" in b, "nack for an oversized packet")
buf = b""
print("ok oversized packet -> -")

expect(b"qSupported:swbreak+", b"PacketSize=1000;", exact=False)
expect(b"?", b"T05thread:1;", exact=False)
regs = packet(b"g")
if len(regs) < 16 * 8 or any(c not in b"0123456789abcdef" for c in regs):
    fail("g answered %r" % regs[:80])
print("ok g -> %d hex digits" % len(regs))
expect(b"m10,4", b"", exact=False)
# Unmapped, beyond the guest's memory, and wrapping addresses fail with an error.
expect(b"mfffff000,4", b"E0e")
expect(b"m40000000,10", b"E0e")
expect(b"mffffffffffffffff,10", b"E0e")
# Lengths: huge is clipped to one packet's worth, malformed numbers are refused.
r = packet(b"m100000,ffffffff")
if not r or len(r) > 4096 or r.startswith(b"E"):
    fail("a huge read answered %r" % r[:40])
print("ok m huge length -> %d hex digits" % len(r))
expect(b"m100000,11111111111111111", b"E16")
expect(b"m,4", b"E16")
expect(b"mzz,4", b"E16")
expect(b"M100000,4:0011", b"E16")   # fewer digits than the length
expect(b"M100000,2:zzzz", b"E16")
expect(b"Mfffff000,1:00", b"E0e")
expect(b"p9999", b"E16")
expect(b"P0=zz", b"E16")
expect(b"Z0,fffff000,1", b"E0e")  # a breakpoint where nothing is mapped
expect(b"Z2,100001,4", b"E16")    # misaligned watchpoint
expect(b"Z2,100000,3", b"E16")    # no such length
expect(b"Z3,100000,4", b"")       # read watchpoints: not supported
expect(b"qXfer:features:read:other.xml:0,100", b"E00")
expect(b"qXfer:features:read:target.xml:0,40", b"m<?xml", exact=False)
expect(b"qXfer:features:read:target.xml:ffffff,40", b"l")
expect(b"vCont?", b"vCont;c;C;s;S;t")
expect(b"vCont;x", b"E16")
expect(b"qRcmd,zz", b"E16")
expect(b"qRcmd," + b"41" * 100, b"E16")  # longer than a monitor line
expect(b"Gzz", b"E16")
expect(b"G" + regs[:-1], b"E16")    # a register cut in half
expect(b"G" + regs, b"OK")          # the same values back: accepted, nothing changes
expect(b"Z1,zz,1", b"E16")
expect(b"Z2,100000", b"E16")
expect(b"qXfer:features:read:target.xml:zz", b"E16")
expect(b"P4=" + b"0" * 40, b"E16")  # a value longer than the register
# Registers unchanged by all of that.
if packet(b"g") != regs:
    fail("registers changed by bad packets")
print("ok registers unchanged")
expect(b"Xunknown", b"")
# Continue, then Ctrl-C: the running guest stops with SIGINT.
s.sendall(frame(b"vCont;c"))
recv_until(lambda b: b"+" in b, "ack of vCont;c")
buf = b""
s.sendall(b"\x03")
recv_until(lambda b: b"#" in b and b.find(b"#") + 3 <= len(b), "stop reply after Ctrl-C")
if b"$T02thread:1;" not in buf:
    fail("Ctrl-C answered %r" % buf)
s.sendall(b"+")
buf = b""
print("ok Ctrl-C -> T02")
expect(b"mfffff000,4", b"E0e")
# Gone in the middle of a packet: the stub must keep serving the next gdb.
s.sendall(b"$m100000,4")
s.close()
print("PROTOCOL OK")
