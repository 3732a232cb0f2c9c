#!/usr/bin/env bash
# slurm_executor.sh KOPT_DIR REPO: kopt's Slurm executor against a real single-node Slurm
# (slurmctld and slurmd, with a munged of its own), all in a temporary folder and on private
# ports, on CPU jobs: the loop on the simulated lab. Checks, in order:
#   submission and collection: kopt optimize --executor slurm ends with the same champion and
#     medians as the same run measured here, and its tasks' files are in the stage folder;
#   a cancelled job: the partition held down, the queued task cancelled (scancel): kopt stops
#     with one line naming it (exit 3); once the partition is up, the same command resumes the
#     run and ends as the first;
#   a failed node: the node down, kopt cancels its tasks at --slurm-time and says so; with the
#     node back, the same command resumes the run.
# Skips (77) where Slurm or munge is not installed (./setup --with-slurm installs them), when
# not root (slurmd runs jobs as their user), or when the daemons do not come up.
set -u
kopt=$1/kopt repo=$2
model=$repo/tests/fixtures/loop/sgemm_tiled_model.json
kernel=$repo/examples/sgemm_tiled
for tool in slurmctld slurmd munged sbatch scontrol scancel squeue sinfo; do
  command -v "$tool" > /dev/null || { echo "SKIPPED: $tool is not installed (./setup --with-slurm)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "SKIPPED: slurmd needs root here"; exit 77; }

t=$(mktemp -d /tmp/kopt-slurm.XXXXXX)
chmod 755 "$t"
stop_cluster() {
  for daemon in slurmd slurmctld munged; do
    [ -f "$t/$daemon.pid" ] && kill "$(cat "$t/$daemon.pid")" 2> /dev/null
  done
  sleep 1
  rm -rf "$t"
}
trap stop_cluster EXIT

host=$(hostname -s)
port=$((20000 + RANDOM % 20000))
mkdir -p "$t/state" "$t/spool" "$t/log"
head -c 1024 /dev/urandom > "$t/munge.key"
chmod 400 "$t/munge.key"
munged --force --key-file="$t/munge.key" --socket="$t/munge.sock" --pid-file="$t/munged.pid" \
    --log-file="$t/log/munged.log" --seed-file="$t/munged.seed" 2> "$t/log/munged.err" \
  || { echo "SKIPPED: munged did not start: $(tail -1 "$t/log/munged.err")"; exit 77; }
cat > "$t/slurm.conf" <<EOF
ClusterName=kopttest
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$t/munge.sock
StateSaveLocation=$t/state
SlurmdSpoolDir=$t/spool
SlurmctldPidFile=$t/slurmctld.pid
SlurmdPidFile=$t/slurmd.pid
SlurmctldLogFile=$t/log/slurmctld.log
SlurmdLogFile=$t/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF=$t/slurm.conf
slurmctld -c > "$t/log/slurmctld.err" 2>&1
slurmd -N "$host" > "$t/log/slurmd.err" 2>&1
for _ in $(seq 60); do
  [ "$(sinfo -h -o %T 2> /dev/null)" = idle ] && break
  sleep 0.5
done
if [ "$(sinfo -h -o %T 2> /dev/null)" != idle ]; then
  echo "SKIPPED: the single-node cluster did not come up (node: $(sinfo -h -o %T 2>&1))"
  tail -3 "$t/log/slurmctld.log" "$t/log/slurmd.log" 2> /dev/null
  exit 77
fi

failed=0
fail() { echo "FAIL: $*"; failed=1; }
optimize() {  # RUN [kopt options...]: the loop on the simulated lab, one iteration of 6 branches
  local run=$1
  shift
  "$kopt" optimize "$kernel" --simulate "$model" --iterations 1 --branches 6 --run "$t/$run" --json "$@" \
      > "$t/$run.out" 2> "$t/$run.err"
}
on_slurm=(--executor slurm --slurm-stage "$t/stage" --slurm-variants-per-task 3)
best_of() { python3 -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); print(json.dumps(s["best"], sort_keys=True), s["best_median_s"])' "$t/$1"; }

# Submission and collection.
optimize here || fail "the run measured here exited $?: $(tail -1 "$t/here.err")"
optimize cluster "${on_slurm[@]}" --slurm-time 2 || fail "the run on Slurm exited $?: $(tail -1 "$t/cluster.err")"
[ "$(best_of cluster)" = "$(best_of here)" ] || fail "Slurm's champion $(best_of cluster) is not the local one's $(best_of here)"
logs=$(find "$t/stage" -name 'part_*.log' | wc -l)
results=$(find "$t/stage" -name 'part_*.result.json' | wc -l)
[ "$logs" -ge 2 ] && [ "$results" -eq "$logs" ] || fail "the stage holds $logs task logs and $results results"

# A cancelled job, then the run resumed.
scontrol update PartitionName=debug State=DOWN
optimize cancelled "${on_slurm[@]}" --slurm-time 2 &
pid=$!
for _ in $(seq 40); do squeue -h -o %j | grep -q '^kopt-' && break; sleep 0.25; done
squeue -h -o %j | grep -q '^kopt-' || fail "no kopt task was queued"
scancel --name="$(squeue -h -o %j | grep -m1 '^kopt-')"
wait "$pid"
rc=$?
[ "$rc" -eq 3 ] || fail "after scancel kopt exited $rc (expected 3)"
grep -q "ended without a result" "$t/cancelled.err" || fail "no line names the cancelled task: $(tail -1 "$t/cancelled.err")"
scontrol update PartitionName=debug State=UP
optimize cancelled "${on_slurm[@]}" --slurm-time 2 || fail "the resumed run exited $?: $(tail -1 "$t/cancelled.err")"
[ "$(best_of cancelled)" = "$(best_of here)" ] || fail "the resumed run's champion differs"

# A failed node: its tasks never run; kopt cancels them at --slurm-time, then resumes.
scontrol update NodeName="$host" State=DOWN Reason=kopt-test
optimize node_down "${on_slurm[@]}" --slurm-time 0.2
rc=$?
[ "$rc" -eq 3 ] || fail "with the node down kopt exited $rc (expected 3)"
grep -q "not done within --slurm-time (12 s): cancelled" "$t/node_down.err" \
  || fail "no line says the tasks were cancelled: $(tail -1 "$t/node_down.err")"
# scancel is asynchronous: the cancelled tasks leave the queue within seconds.
for _ in $(seq 40); do squeue -h -o %j | grep -q '^kopt-' || break; sleep 0.25; done
squeue -h -o %j | grep -q '^kopt-' && fail "kopt left its tasks queued"
scontrol update NodeName="$host" State=RESUME
for _ in $(seq 40); do [ "$(sinfo -h -o %T)" = idle ] && break; sleep 0.25; done
optimize node_down "${on_slurm[@]}" --slurm-time 2 || fail "the resumed run exited $?: $(tail -1 "$t/node_down.err")"
[ "$(best_of node_down)" = "$(best_of here)" ] || fail "the resumed run's champion differs"

# The next step printed keeps the executor's flags: `kopt close` goes to the cluster too.
"$kopt" init "$kernel" --simulate "$model" --run "$t/stepwise" "${on_slurm[@]}" --slurm-time 2 --json > "$t/init.json" 2> "$t/init.err" \
  || fail "init on Slurm exited $?: $(tail -1 "$t/init.err")"
python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["command"]; sys.exit(0 if "--executor slurm" in c and "--slurm-stage" in c else 1)' \
    "$t/init.json" || fail "init's next command lost --executor slurm: $(head -c 300 "$t/init.json")"

[ "$failed" -eq 0 ] && echo "ok: submission, collection, a cancelled job, a failed node, resume, the next step's flags"
exit "$failed"
