#!/usr/bin/env bash
# ctest montecarlo.slurm_recipe (label scale): the documented Slurm recipe for sharded Monte Carlo
# runs (examples/slurm/montecarlo_array.sbatch, docs/montecarlo.md "Monte Carlo shards") submitted
# as it is to a private single-node Slurm cluster started here, then merged with `ropecheck merge`.
#
#   tests/montecarlo/slurm_recipe.sh ROPECHECK SBATCH_FILE
#
# 1. A munge key, munged, a slurm.conf (one node on 127.0.0.1, free ports, every state, spool, log
#    and pid file in a temporary directory, no accounting, no cgroups), slurmctld and slurmd; waits
#    until sinfo shows the node idle.
# 2. The unsharded run, then `sbatch --array=0-3 SBATCH_FILE <small settings>`: four shards. Task 2
#    is stopped mid-computation (ROPECHECK points at a test double that runs the real binary and
#    stops it with SIGSTOP after 0.2 s) and cancelled with scancel: no part-2.json is left, and
#    merging what is there exits 2 naming the missing shard. Task 2 resubmitted alone
#    (SHARDS=4 sbatch --array=2), the documented merge is byte-identical (cmp) to the unsharded
#    run's JSON, CSV and report.
# 3. A duplicated and a truncated partial: merge exits 2, one stderr line naming the file, no
#    output file.
# A trap stops every daemon started here, kills what is left of the jobs and removes the temporary
# directory on every exit (EXIT, INT, TERM, HUP).
#
# Needs: root (slurmd starts each job as its submitting user, and this cluster's SlurmUser is the
# current user), slurmctld, slurmd, sbatch (Debian 12: slurmctld, slurmd, slurm-client, through the
# slurm-wlm metapackage) and munged (munge); scripts/setup installs them. Without them it exits 77,
# which ctest reports as skipped. Runs in ~30 s on 2 cores.
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 ROPECHECK SBATCH_FILE" >&2
  exit 2
fi
ropecheck=$(readlink -f "$1")
recipe=$(readlink -f "$2")
[ -x "$ropecheck" ] || { echo "slurm_recipe: $1 is not an executable" >&2; exit 2; }
[ -f "$recipe" ] || { echo "slurm_recipe: $2 is not a file" >&2; exit 2; }

skip() {
  echo "SKIPPED: $*" >&2
  exit 77
}
for tool in munged slurmctld slurmd sbatch squeue sinfo scancel scontrol; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool is not installed (scripts/setup installs slurm-wlm and munge)"
done
[ "$(id -u)" -eq 0 ] || skip "needs root: slurmd starts each job as the user who submitted it (setuid, setgroups), which a slurmd not run as root cannot"

started=$SECONDS
log() { printf '[slurm_recipe %3ds] %s\n' $((SECONDS - started)) "$*"; }

dir=""       # the temporary directory: every file of this run is in it
daemons=()   # pids of munged, slurmctld, slurmd (each run in the foreground, in the background)
submitted=0  # whether a job was submitted (to cancel on the way out)
user=$(id -un)
failed=1

dump_logs() {
  for f in "$dir"/log/* "$dir"/work/slurm-*.out; do
    [ -f "$f" ] || continue
    echo "----- ${f#"$dir"/} (last 30 lines)" >&2
    tail -n 30 "$f" >&2
  done
}

cleanup() {
  local status=$?
  trap - EXIT INT TERM HUP
  set +e
  if [ -z "$dir" ]; then exit "$status"; fi
  if [ "$failed" -ne 0 ]; then dump_logs; fi
  if [ "$submitted" -ne 0 ] && [ ${#daemons[@]} -ge 2 ]; then
    scancel --user="$user" 2>/dev/null  # this cluster runs only this test's jobs
    for _ in $(seq 1 50); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
  fi
  # Stop the daemons in reverse order: slurmd, slurmctld, munged.
  local i pid
  for ((i = ${#daemons[@]} - 1; i >= 0; i--)); do
    pid=${daemons[i]}
    kill -TERM "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  # Whatever survived (a slurmstepd, a job's process): every process carrying this run's marker,
  # except this shell.
  local environ
  for environ in /proc/[0-9]*/environ; do
    pid=${environ#/proc/}
    pid=${pid%/environ}
    [ "$pid" = "$$" ] || [ "$pid" = "$BASHPID" ] && continue
    if { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "ROPECHECK_SLURM_TEST_DIR=$dir"; then
      kill -KILL "$pid" 2>/dev/null
    fi
  done
  cd / && rm -rf "$dir"
  if [ "$status" -eq 0 ] && [ "$failed" -ne 0 ]; then status=1; fi
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

dir=$(mktemp -d /tmp/ropecheck-slurm.XXXXXX)
# munged refuses a socket in a directory that not everyone may traverse (hence /tmp, not $TMPDIR).
chmod 755 "$dir"
mkdir -m 755 "$dir/munge" "$dir/work" "$dir/bin"
mkdir -m 700 "$dir/state" "$dir/spool" "$dir/log" "$dir/run" "$dir/key" "$dir/gate"
# Everything started from here carries this variable; the cleanup kills what is left with it
# (slurmstepd and the job's processes are not children of this script).
export ROPECHECK_SLURM_TEST_DIR="$dir"
export SLURM_CONF="$dir/slurm.conf"

fail() {
  echo "FAILED: $*" >&2
  exit 1
}

# Waits up to $1 seconds for the command after it to succeed; fails with $2 otherwise. Every wait
# ends by 180 s after the start, so that a stuck cluster fails here, with its logs and a cleanup,
# before ctest's TIMEOUT (240 s) kills the script.
wait_for() {
  local seconds=$1 what=$2
  shift 2
  local deadline=$((SECONDS + seconds))
  [ "$deadline" -le $((started + 180)) ] || deadline=$((started + 180))
  until "$@"; do
    [ "$SECONDS" -lt "$deadline" ] || fail "$what (waited ${seconds} s)"
    sleep 0.2
  done
}

# free_port VAR: sets VAR to a TCP port in [20000, 60000) nothing listens on (connecting is
# refused) and no earlier call chose.
chosen_ports=" "
free_port() {
  local port
  for _ in $(seq 1 200); do
    port=$((20000 + (RANDOM * 32768 + RANDOM) % 40000))
    [[ "$chosen_ports" == *" $port "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      chosen_ports+="$port "
      printf -v "$1" '%s' "$port"
      return 0
    fi
  done
  fail "no free TCP port found"
}

# ---- 1. munged, slurmctld, slurmd ----------------------------------------------------------------

# The key: owned by the user munged runs as (this one), readable by it only.
if command -v mungekey >/dev/null 2>&1; then
  mungekey --create --bits 1024 --keyfile "$dir/key/munge.key"
else
  dd if=/dev/urandom of="$dir/key/munge.key" bs=128 count=1 status=none
fi
chmod 400 "$dir/key/munge.key"
munge_socket="$dir/munge/munge.socket"
munged --foreground --socket "$munge_socket" --key-file "$dir/key/munge.key" \
  --pid-file "$dir/run/munged.pid" --log-file "$dir/log/munged.log" --seed-file "$dir/run/munged.seed" \
  >"$dir/log/munged.stdout" 2>&1 &
daemons+=($!)
wait_for 20 "munged did not create its socket $munge_socket" test -S "$munge_socket"

ctld_port="" slurmd_port=""
free_port ctld_port
free_port slurmd_port
node="ropecheck-node"
host=$(uname -n)
host=${host%%.*}  # slurmctld runs only on the host SlurmctldHost names
cpus=$(nproc)
# RealMemory: half the machine, at most 1 GiB (the jobs here need ~20 MB; memory is not scheduled).
mem_mb=$(awk '/^MemTotal:/ { m = int($2 / 2048); print (m > 1024 ? 1024 : m) }' /proc/meminfo)
cat >"$SLURM_CONF" <<EOF
# A private single-node cluster for tests/montecarlo/slurm_recipe.sh.
ClusterName=ropecheck-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$munge_socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$dir/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobContainerType=job_container/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
ReturnToService=2
KillWait=5
MinJobAge=600
NodeName=$node NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
: >"$dir/plugstack.conf"

slurmctld -D -i >"$dir/log/slurmctld.stdout" 2>&1 &
daemons+=($!)
slurmd -D -N "$node" >"$dir/log/slurmd.stdout" 2>&1 &
daemons+=($!)
node_idle() {
  for pid in "${daemons[@]}"; do kill -0 "$pid" 2>/dev/null || fail "a daemon (pid $pid) exited during start-up"; done
  [ "$(sinfo -h -n "$node" -o %T 2>/dev/null)" = idle ]
}
wait_for 60 "node $node not idle in sinfo ($(sinfo -h -N -o '%N %T' 2>&1 || true))" node_idle
log "slurm up: node $node idle, $cpus CPUs, slurmctld port $ctld_port, slurmd port $slurmd_port"

# ---- 2. the recipe, a task cancelled mid-run and resubmitted -------------------------------------

# Small settings: ~1 s per shard on one core of this machine (the binary is Release).
settings=(--experiment fig2b --seed 7 --dim 16 --trials 8000 --max-distance 2000)
cd "$dir/work"
"$ropecheck" montecarlo "${settings[@]}" --threads "$cpus" --out "$dir/whole.json" --csv "$dir/whole.csv" \
  >"$dir/whole.txt" 2>/dev/null || fail "the unsharded run failed"
log "unsharded run done"

# The test double for the recipe's ROPECHECK: task 2's first run starts the real binary, stops it
# 0.2 s in (mid-computation: a shard takes ~1 s) and waits; every other run is the real binary.
cat >"$dir/bin/ropecheck" <<EOF
#!/bin/bash
if [ "\${SLURM_ARRAY_TASK_ID:-}" = 2 ] && mkdir "$dir/gate/task2" 2>/dev/null; then
  "$ropecheck" "\$@" &
  child=\$!
  sleep 0.2
  if kill -STOP "\$child" 2>/dev/null; then echo "\$child" >"$dir/gate/stopped"; else touch "$dir/gate/too-fast"; fi
  wait "\$child"
  exit
fi
exec "$ropecheck" "\$@"
EOF
chmod 755 "$dir/bin/ropecheck"

job_state() {  # job_state JOBID_TASK: the task's JobState from scontrol
  scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}
job_gone() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }

# The recipe, the task count overridden, the experiment settings as its arguments.
job=$(ROPECHECK="$dir/bin/ropecheck" sbatch --parsable --array=0-3 "$recipe" "${settings[@]}") ||
  fail "sbatch refused the recipe"
job=${job%%;*}
submitted=1
log "submitted array job $job (tasks 0-3)"

gate_closed() {
  [ -e "$dir/gate/too-fast" ] && fail "task 2's shard ended within 0.2 s: raise --trials so that it can be stopped mid-run"
  [ -e "$dir/gate/stopped" ]
}
wait_for 60 "task 2 never started" gate_closed
[ "$(job_state "${job}_2")" = RUNNING ] || fail "task 2 is stopped but Slurm says it is $(job_state "${job}_2")"
scancel "${job}_2"
log "task 2 stopped mid-run (ropecheck pid $(cat "$dir/gate/stopped")) and cancelled"
wait_for 60 "array job $job did not finish" job_gone "$job"
for k in 0 1 2 3; do
  state=$(job_state "${job}_$k")
  if [ "$k" = 2 ]; then
    [ "$state" = CANCELLED ] || fail "task 2 is $state, expected CANCELLED"
  else
    [ "$state" = COMPLETED ] || fail "task $k is $state, expected COMPLETED"
  fi
done
# The cancelled task leaves nothing behind: no part-2.json, no temporary.
leftover=""
shopt -s dotglob nullglob
for f in *; do
  [[ "$f" =~ ^(part-[013]\.json|slurm-${job}_[0-3]\.out)$ ]] || leftover+=" $f"
done
shopt -u dotglob nullglob
[ -z "$leftover" ] || fail "files left in the work directory:$leftover"
log "tasks 0, 1, 3 completed, task 2 cancelled; parts: $(echo part-*.json)"

# Exit status 2, exactly one line on stderr containing $3 (and $4 if given), neither output file.
expect_refused() {
  local what=$1 status=$2 needle=$3 needle2=${4:-}
  local lines
  lines=$(wc -l <"$dir/merge.err")
  [ "$status" -eq 2 ] || fail "$what: merge exited $status, expected 2: $(cat "$dir/merge.err")"
  [ "$lines" -eq 1 ] || fail "$what: merge wrote $lines lines on stderr, expected 1: $(cat "$dir/merge.err")"
  grep -qF -- "$needle" "$dir/merge.err" || fail "$what: the message does not name '$needle': $(cat "$dir/merge.err")"
  [ -z "$needle2" ] || grep -qF -- "$needle2" "$dir/merge.err" ||
    fail "$what: the message does not name '$needle2': $(cat "$dir/merge.err")"
  if [ -e "$dir/refused.json" ] || [ -e "$dir/refused.csv" ]; then fail "$what: merge left an output file"; fi
  log "$what: exit 2, '$(cat "$dir/merge.err")'"
}

# Fault: a missing partial (the cancelled task's), merged with the documented command.
status=0
"$ropecheck" merge part-*.json --out "$dir/refused.json" --csv "$dir/refused.csv" >/dev/null 2>"$dir/merge.err" || status=$?
expect_refused "missing partial" "$status" "2/4"

# Task 2 resubmitted alone, as the recipe says (SHARDS=4: the array has one task now).
again=$(SHARDS=4 ROPECHECK="$ropecheck" sbatch --parsable --array=2 "$recipe" "${settings[@]}") ||
  fail "sbatch refused the resubmission"
again=${again%%;*}
wait_for 60 "the resubmitted task 2 (job $again) did not finish" job_gone "$again"
[ "$(job_state "${again}_2")" = COMPLETED ] || fail "the resubmitted task 2 is $(job_state "${again}_2")"
[ -f part-2.json ] || fail "the resubmitted task 2 wrote no part-2.json"
log "task 2 resubmitted as job $again and completed"

# The documented merge: the very bytes of the unsharded run.
"$ropecheck" merge part-*.json --out fig2b.json --csv fig2b.csv >"$dir/merged.txt" 2>"$dir/merge.err" ||
  fail "merge failed: $(cat "$dir/merge.err")"
cmp "$dir/whole.json" fig2b.json || fail "the merged JSON differs from the unsharded run's"
cmp "$dir/whole.csv" fig2b.csv || fail "the merged CSV differs from the unsharded run's"
cmp "$dir/whole.txt" "$dir/merged.txt" || fail "merge's report differs from the unsharded run's"
log "merge of the 4 shards is byte-identical to the unsharded run (JSON, CSV, report)"

# ---- 3. a duplicated and a truncated partial -----------------------------------------------------

mkdir again cut
cp part-1.json again/part-1.json
status=0
"$ropecheck" merge part-0.json part-1.json part-2.json part-3.json again/part-1.json \
  --out "$dir/refused.json" --csv "$dir/refused.csv" >/dev/null 2>"$dir/merge.err" || status=$?
expect_refused "duplicated partial" "$status" "part-1.json" "1/4"

head -c $(($(stat -c %s part-3.json) / 2)) part-3.json >cut/part-3.json
status=0
"$ropecheck" merge part-0.json part-1.json part-2.json cut/part-3.json \
  --out "$dir/refused.json" --csv "$dir/refused.csv" >/dev/null 2>"$dir/merge.err" || status=$?
expect_refused "truncated partial" "$status" "cut/part-3.json"

failed=0
log "passed"
