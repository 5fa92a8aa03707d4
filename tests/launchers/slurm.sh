#!/usr/bin/env bash
# tests/launchers/slurm.sh start|stop DIR: a one-machine Slurm for the
# launcher tests — munged, slurmctld and slurmd with a minimal
# configuration in DIR (SLURM_CONF=DIR/slurm.conf), 4 CPUs declared
# (config_overrides: the machine may have fewer), MpiDefault=pmix so srun's
# tasks get a PMIx server. Needs root (Slurm's daemons run as root here).
set -euo pipefail
export PATH=/usr/sbin:/sbin:$PATH
action=$1 dir=$2
case "$action" in
start)
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge" "$dir/log"
  chmod 700 "$dir/munge"
  cat > "$dir/slurm.conf" <<CONF
ClusterName=ncoretest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldPort=${NCORE_SLURMCTLD_PORT:-16817}
SlurmdPort=${NCORE_SLURMD_PORT:-16818}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
NodeName=localhost NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
CONF
  [ -f "$dir/munge/munge.key" ] || dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$dir/munge/munge.key"
  munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munge/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed"
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -c -f "$SLURM_CONF"
  slurmd -N localhost -f "$SLURM_CONF"
  for _ in $(seq 100); do
    if sinfo -h -o %T 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then exit 0; fi
    sleep 0.2
  done
  echo "slurm.sh: the node did not come up; logs:" >&2
  tail -n 20 "$dir"/log/*.log >&2
  exit 1
  ;;
stop)
  for pidfile in "$dir/slurmd.pid" "$dir/slurmctld.pid" "$dir/munge/munged.pid"; do
    [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  ;;
esac
