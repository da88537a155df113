#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Bochs' serial socket-server takes one client, once: this holds that connection and relays
it to the clients of a port of its own, one after the other (the protocol script, then gdb).
Usage: relay.py BOCHS_PORT LISTEN_PORT. Ends when Bochs closes the connection."""
import select, socket, sys, time

upstream_port, listen_port = int(sys.argv[1]), int(sys.argv[2])
srv = socket.socket()
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen_port))
srv.listen(1)
for _ in range(600):
    try:
        up = socket.create_connection(("127.0.0.1", upstream_port))
        break
    except OSError:
        time.sleep(0.2)
else:
    sys.exit("relay: Bochs never listened")
client = None
while True:
    socks = [up, srv] + ([client] if client else [])
    for s in select.select(socks, [], [])[0]:
        if s is srv:
            if client:
                client.close()
            client, _ = srv.accept()
            continue
        try:
            data = s.recv(65536)
        except ConnectionResetError:
            data = b""
        if s is up:
            if not data:
                sys.exit(0)
            if client:
                client.sendall(data)
        elif not data:
            client.close()
            client = None
        else:
            up.sendall(data)
