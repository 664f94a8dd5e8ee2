#!/bin/sh
# agpu sweep under a single-node Slurm that this test starts and stops
# (munged, slurmctld and slurmd on localhost, a minimal slurm.conf in a
# temporary directory, no cgroups, no systemd): srun --mpi=pmix -n 2 (where
# agpu is built with MPI), and the documented job-array script
# (scripts/sweep-array.sbatch) with two shards, merged after; each gives the
# serial run's results byte for byte. Exit 77 (skipped), saying why, where
# Slurm cannot start (not root, not installed: scripts/setup.sh --tests).
# usage: slurm_test.sh AGPU SPEC WORKDIR ARRAY_SCRIPT HAVE_MPI(ON|OFF)
set -eu
agpu=$1 spec=$2 work=$3 array_script=$4 have_mpi=$5
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }

[ "$(id -u)" -eq 0 ] || skip "slurmd runs as root here, and this is not root"
for tool in munged slurmctld slurmd srun sbatch sinfo; do
  command -v "$tool" >/dev/null 2>&1 || [ -x "/usr/sbin/$tool" ] || skip "no $tool (scripts/setup.sh --tests installs slurm-wlm and munge)"
done
id munge >/dev/null 2>&1 || skip "no munge user (the munge package creates it)"
[ -s "$work/serial/points.jsonl" ] || fail "no reference: the serial test writes $work/serial/points.jsonl"
PATH=$PATH:/usr/sbin

tmp=$(mktemp -d /tmp/agpu-slurm.XXXXXX)
chmod 755 "$tmp"
pids=""
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  for p in $pids; do wait "$p" 2>/dev/null || true; done
  [ -f "$tmp/munge/munged.pid" ] && kill "$(cat "$tmp/munge/munged.pid")" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
logs() { for f in "$tmp"/log/* "$tmp"/munge/munged.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done; }

# munge: a key and a socket of this test's own.
mkdir -p "$tmp/munge" "$tmp/log" "$tmp/state" "$tmp/spool"
chmod 755 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 2>/dev/null
chown -R munge: "$tmp/munge"
chmod 400 "$tmp/munge/munge.key"
runuser -u munge -- munged --socket="$tmp/munge/munge.socket" --key-file="$tmp/munge/munge.key" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/seed" ||
  { logs; skip "munged did not start"; }

# Ports of this test's own, so that it does not meet another Slurm.
port=$((20000 + $$ % 10000 * 2 % 10000))
cat > "$tmp/slurm.conf" <<EOF
ClusterName=agpu-test
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=localhost CPUs=2 State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -f "$SLURM_CONF" > "$tmp/log/slurmctld.out" 2>&1 &
pids="$pids $!"
slurmd -D -f "$SLURM_CONF" -N localhost > "$tmp/log/slurmd.out" 2>&1 &
pids="$pids $!"
up=0
for _ in $(seq 1 60); do
  [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ] && { up=1; break; }
  sleep 0.5
done
[ $up -eq 1 ] || { logs; skip "slurmctld and slurmd did not bring localhost up (logs above)"; }
echo "slurm up: $(sinfo -h -o '%P %D %t %c CPUs')"

same_as_serial() {
  sort "$work/serial/points.jsonl" > "$tmp/serial.sorted"
  sort "$1/points.jsonl" > "$tmp/this.sorted"
  cmp "$tmp/serial.sorted" "$tmp/this.sorted" || fail "$1/points.jsonl differs from the serial run's"
  echo "ok: $1/points.jsonl equals the serial run's, byte for byte"
}

# srun: two tasks, one MPI job over PMIx.
if [ "$have_mpi" = ON ] && srun --mpi=list 2>&1 | grep -q pmix; then
  rm -rf "$work/srun"
  out=$(srun --mpi=pmix -n 2 -t 5 "$agpu" sweep "$spec" --out "$work/srun" --quiet) || { logs; fail "srun exited $?"; }
  echo "$out"
  echo "$out" | grep -q "on MPI (.*), 2 ranks" || fail "srun did not make one MPI job of 2 ranks"
  same_as_serial "$work/srun"
else
  echo "srun over MPI: not run (agpu built without MPI, or Slurm without its pmix plugin)"
fi

# A job array of two shards into one cache, then the merge.
rm -rf "$work/array"
sbatch --wait --array=0-1 -o "$tmp/log/array-%a.out" "$array_script" "$spec" "$work/array" "$agpu" > "$tmp/log/sbatch.out" 2>&1 ||
  { cat "$tmp/log/sbatch.out" "$tmp"/log/array-*.out 2>/dev/null; logs; fail "the job array failed"; }
cat "$tmp"/log/array-*.out
[ ! -e "$work/array/points.jsonl" ] || fail "a shard wrote the results"
out=$("$agpu" sweep "$spec" --out "$work/array" --merge --quiet)
echo "$out"
echo "$out" | grep -q ": 225 points, 0 computed, 225 from the cache" || fail "the merge computed something or missed points"
same_as_serial "$work/array"
