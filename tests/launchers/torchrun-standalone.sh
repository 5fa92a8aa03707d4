#!/usr/bin/env bash
# tests/launchers/torchrun-standalone.sh ARGS...: `torchrun --standalone
# ARGS...`, one at a time on this machine. torch 1.13's --standalone puts
# its agent's rendezvous store on the fixed port 29400 (torch >= 2 picks a
# free one): a second standalone job started while one runs fails to bind
# it, joins the first job's store as a client instead and fails when that
# job ends ("RendezvousConnectionError ... Broken pipe" in
# num_nodes_waiting, seen twice while another run of these tests ran on the
# same machine). So runs of this suite take turns (a lock) and start once
# the port is free (bounded: 60 s), and the job they test is the only one
# on it. The lock file is per user, beside the other test state in /tmp.
set -u
lock=/tmp/ncore-torchrun-standalone-$(id -u).lock
exec 9> "$lock"
flock -w 300 9 || { echo "torchrun-standalone.sh: another torchrun --standalone held $lock for 300 s" >&2; exit 124; }
python=${PYTHON:-/usr/bin/python3}
for _ in $(seq 1 120); do
  $python - <<'PY' && break
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind(("", 29400))
except OSError:
    sys.exit(1)
PY
  sleep 0.5
done
exec $python -m torch.distributed.run --standalone "$@"
