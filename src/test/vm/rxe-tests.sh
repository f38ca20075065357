#!/usr/bin/env bash
# rxe-tests.sh: RDMA Lab's native backend on the real kernel rxe driver. Runs inside the rxe VM
# (src/test/vm/rxe-vm runs it; see docs/rxe-vm-testing.md):
#
#   src/test/vm/rxe-vm src/test/vm/rxe-tests.sh [TEST...]     # all tests, or the named ones
#
# Needs target/rdma-lab.jar (mvn package) and target/vm/seed_demo (compiled by rxe-vm-tests, or by
# hand: gcc -o target/vm/seed_demo src/test/c/seed_demo.c -libverbs). Each test prints PASS or FAIL
# with its time; every program's output is kept in target/rxe-vm-tests/. Exit 0 when all pass.
set -u

[ "${RXE_VM:-}" = 1 ] || { echo "rxe-tests.sh: run me inside the VM: src/test/vm/rxe-vm $0" >&2; exit 2; }
JAR=${RXE_JAR:-target/rdma-lab.jar}
SEED=target/vm/seed_demo
LOGS=target/rxe-vm-tests
[ -f "$JAR" ] || { echo "rxe-tests.sh: $JAR is missing: run mvn package first" >&2; exit 2; }
rm -rf "$LOGS"; mkdir -p "$LOGS"
IP1=$RXE_IP IP2=$RXE_IP2
# C1 only and the serial collector: emulated CPUs spend less time compiling and collecting.
# RXE_JAVA_OPTS replaces them (words split on spaces), for experiments with the JIT in the VM.
read -r -a JAVA_OPTS <<< "${RXE_JAVA_OPTS:--XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xss1m}"
lab() { java "${JAVA_OPTS[@]}" -jar "$JAR" "$@"; }
# demo's accept and connect wait: a JVM start in the emulated VM can take a minute, longer than
# the default 30 s a server waits for its client. The seed polls a CQ for 2 s (MAX_POLL_CQ_TIMEOUT),
# and on a busy machine the emulated peer can take longer than that to post its SEND, so each demo
# polls for up to a minute (as rxe-soft0.sh's do).
WAIT=(--timeout 600 --poll-timeout 60000)

passed=0 failed=0 failures=""
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }'; }
# check NAME CONDITION-TEXT: records one assertion of the current test.
problems=""
expect() { # expect FILE TEXT: FILE contains the literal TEXT
    grep -qF -- "$2" "$LOGS/$1" || problems="$problems\n    $1 lacks: $2"
}
expect_row() { # expect_row FILE BYTES ITERATIONS: a table row starting with these two figures
    grep -Eq -- "^ $2 +$3 +[0-9]" "$LOGS/$1" || problems="$problems\n    $1 lacks a row for $2 bytes, $3 iterations"
}
expect_vaddrs() { # expect_vaddrs FILE COUNT: perftest's "remote address" lines name COUNT different VAddrs
    local n
    n=$(grep -F "remote address" "$LOGS/$1" | grep -oE "VAddr 0x[0-9a-fA-F]+" | sort -u | wc -l)
    [ "$n" = "$2" ] || problems="$problems\n    $1 names $n different remote VAddrs, expected $2"
}
expect_status() { # expect_status WHAT ACTUAL EXPECTED
    [ "$2" = "$3" ] || problems="$problems\n    $1 exited $2, expected $3"
}
run_test() {
    local name=$1 start
    start=$(now); problems=""
    "test_$name"
    if [ -z "$problems" ]; then
        passed=$((passed + 1)); echo "PASS $name ($(since "$start") s)"
    else
        failed=$((failed + 1)); failures="$failures $name"
        echo "FAIL $name ($(since "$start") s)"; printf "%b\n" "$problems" | sed '/^$/d'
        for f in "$LOGS"/"$name"*; do [ -f "$f" ] && { echo "  --- $f (last lines)"; tail -15 "$f" | sed 's/^/  | /'; }; done
    fi
}
# wait_listen PORT: until something listens on TCP PORT (clients of ibv_rc_pingpong do not retry).
wait_listen() {
    local n=0
    while ! ss -ltn 2>/dev/null | grep -q ":$1 "; do
        sleep 0.5; n=$((n + 1)); [ $n -lt 240 ] || return 1
    done
}
# peers NAME SERVER-CMD -- CLIENT-CMD: server in the background, the client once it listens on $PORT.
peers() {
    local name=$1; shift
    local server=() client=()
    while [ "$1" != -- ]; do server+=("$1"); shift; done; shift
    client=("$@")
    "${server[@]}" >"$LOGS/$name.server" 2>&1 &
    local spid=$!
    wait_listen "$PORT" || problems="$problems\n    the server never listened on $PORT"
    "${client[@]}" >"$LOGS/$name.client" 2>&1
    client_status=$?
    wait "$spid"; server_status=$?
}

# ------------------------------------------------------------------------------------------ tests

test_devices() {
    lab devices >"$LOGS/devices.out" 2>&1; expect_status devices $? 0
    expect devices.out "hca_id: rxe0"
    expect devices.out "link_layer:   Ethernet"
    # Every GID the kernel lists in sysfs (one grep: the table has hundreds of empty slots), as
    # the table shows it: its index and the type rxe gives it.
    local sys=/sys/class/infiniband/rxe0/ports/1 idx gid type seen=0
    while IFS=: read -r idx gid; do
        seen=$((seen + 1))
        type=$(cat "$sys/gid_attrs/types/$idx" 2>/dev/null)
        [ "$type" = "RoCE v2" ] || problems="$problems\n    GID $idx has type '$type'"
        grep -Eq "GID\[ *$idx\]: +[0-9a-f:.]+ +RoCE v2 +eth0" "$LOGS/devices.out" \
            || problems="$problems\n    devices does not list GID $idx ($gid, $type)"
    done < <(cd "$sys/gids" && grep -v -H '^0000:0000:0000:0000:0000:0000:0000:0000$' -- * 2>/dev/null)
    [ "$seen" -ge 3 ] || problems="$problems\n    sysfs showed $seen GIDs for rxe0, expected at least 3"
    expect devices.out "::ffff:$IP1"
    expect devices.out "::ffff:$IP2"
}

demo_pair() { # demo_pair NAME PROTOCOL [extra options]
    local name=$1 protocol=$2; shift 2
    PORT=$([ "$protocol" = pingpong ] && echo 18515 || echo 12025)
    peers "$name" lab demo "$IP1" rxe0 --protocol "$protocol" "${WAIT[@]}" "$@" \
        -- lab demo "$IP2" rxe0 "$IP1" --protocol "$protocol" "${WAIT[@]}" "$@"
    expect_status "$name server" "$server_status" 0
    expect_status "$name client" "$client_status" 0
    # <local_ip> chose the GID carrying it (rxe0 lists 10.0.2.15 at 1 and 10.0.2.16 at 2).
    expect "$name.server" "GID[1] ::ffff:$IP1 RoCE v2 (gid_idx auto: the GID of $IP1)"
    expect "$name.client" "GID[2] ::ffff:$IP2 RoCE v2 (gid_idx auto: the GID of $IP2)"
}

test_demo_seed() {
    demo_pair demo_seed seed
    expect demo_seed.server "Contents of server buffer: 'HelloWorld'"
    expect demo_seed.client "Message is: 'ServerSend'"
    expect demo_seed.client "IBV_WC_SUCCESS opcode IBV_WC_RDMA_WRITE byte_len 11"
    expect demo_seed.server "gid ::ffff:$IP2 (34 bytes)"
}

test_demo_lab() {
    demo_pair demo_lab lab
    expect demo_lab.server "Contents of server buffer: 'HelloWorld'"
    expect demo_lab.client "Contents of the peer's buffer: 'HelloWorld'"
    expect demo_lab.server "peer QP 0x"
}

test_demo_pingpong() {
    demo_pair demo_pingpong pingpong --iters 200
    expect demo_pingpong.client "200 iters in"
    expect demo_pingpong.server "Last message received: 'HelloWorld'"
}

test_pingpong_vs_ibv_rc_pingpong() {
    PORT=18515
    # RDMA Lab serves, ibv_rc_pingpong connects from 10.0.2.16 (GID 2) ...
    peers pingpong_lab_server lab demo "$IP1" rxe0 --protocol pingpong --iters 200 "${WAIT[@]}" \
        -- ibv_rc_pingpong -d rxe0 -g 2 -n 200 "$IP1"
    expect_status "RDMA Lab server" "$server_status" 0
    expect_status "ibv_rc_pingpong client" "$client_status" 0
    expect pingpong_lab_server.client "200 iters in"
    expect pingpong_lab_server.server "200 iters in"
    # ... and the other way round.
    peers pingpong_lab_client ibv_rc_pingpong -d rxe0 -g 1 -n 200 \
        -- lab demo "$IP2" rxe0 "$IP1" --protocol pingpong --iters 200 "${WAIT[@]}"
    expect_status "ibv_rc_pingpong server" "$server_status" 0
    expect_status "RDMA Lab client" "$client_status" 0
    expect pingpong_lab_client.server "200 iters in"
    expect pingpong_lab_client.client "200 iters in"
}

test_seed_c_vs_demo() {
    PORT=12025
    # The seed's C program serves, RDMA Lab's demo is the client ...
    peers seed_c_server "$SEED" -g 1 "$IP1" rxe0 -- lab demo "$IP2" rxe0 "$IP1" "${WAIT[@]}"
    expect_status "seed_demo server" "$server_status" 0
    expect_status "demo client" "$client_status" 0
    expect seed_c_server.server "Contents of server buffer: 'HelloWorld'"
    expect seed_c_server.client "Message is: 'ServerSend'"
    # ... and RDMA Lab's demo serves the seed's C client.
    peers seed_c_client lab demo "$IP1" rxe0 "${WAIT[@]}" -- "$SEED" -g 2 "$IP2" rxe0 "$IP1"
    expect_status "demo server" "$server_status" 0
    expect_status "seed_demo client" "$client_status" 0
    expect seed_c_client.server "Contents of server buffer: 'HelloWorld'"
    expect seed_c_client.client "Message is: 'ServerSend'"
    expect seed_c_client.client "Contents of server's buffer: 'ServerSend'"
}

# The lines that say what a scenario did, free of addresses, keys and times: role, wr_id, status,
# opcode of every completion; the QP states queried; the result.
outcome() {
    sed -n -E \
        -e 's/^(server|client) +ibv_poll_cq +(wr_id [0-9]+) +(IBV_WC_[A-Z_]+) +(opcode [A-Z_]+ +byte_len [0-9]+).*/\1 \2 \3 \4/p; t' \
        -e 's/^(server|client) +ibv_poll_cq +(wr_id [0-9]+) +(IBV_WC_[A-Z_]+).*/\1 \2 \3/p' \
        -e 's/^(server|client) +ibv_query_qp +qp_num 0x[0-9a-f]+ is in (IBV_QPS_[A-Z]+).*/\1 \2/p' \
        -e 's/^scenario ([a-z-]+):.*/== \1/p' \
        -e 's/^result: ([a-z ]+):.*/\1/p' "$1"
}

test_loopback_all() {
    # Both peers on rxe0 with two QPs, each with the GID of its address. Meanwhile the QPs, MRs and
    # PDs the kernel holds are sampled: if a scenario leaked, they would pile up across the eleven.
    ( while :; do rdma resource show 2>/dev/null | grep rxe0; sleep 0.3; done ) >"$LOGS/loopback_all.samples" &
    local sampler=$!
    lab loopback --device rxe0 --scenario all --server-address "$IP1" --client-address "$IP2" \
        >"$LOGS/loopback_all.rxe0" 2>&1
    local status=$?
    kill "$sampler"; wait "$sampler" 2>/dev/null
    expect_status "loopback --device rxe0 --scenario all" "$status" 0
    expect loopback_all.rxe0 "gid_idx 1: ::ffff:$IP1 RoCE v2 (the GID of $IP1"
    expect loopback_all.rxe0 "gid_idx 2: ::ffff:$IP2 RoCE v2 (the GID of $IP2"
    local name
    for name in seed bulk send atomic bad-rkey out-of-bounds mr-no-remote-write qp-no-remote-write rnr \
            retry-exceeded bad-transition; do
        grep -Eq "^  $name +as expected" "$LOGS/loopback_all.rxe0" || problems="$problems\n    $name: $(grep -E "^  $name " "$LOGS/loopback_all.rxe0")"
    done
    # rxe itself holds one PD, CQ and QP (QP1); the lab adds two of each at most, one per peer.
    local most
    most=$(sed -n 's/.* qp \([0-9]*\) .*/\1/p' "$LOGS/loopback_all.samples" | sort -n | tail -1)
    [ -n "$most" ] && [ "$most" -le $((BASE_QP + 2)) ] \
        || problems="$problems\n    QPs alive during the run reached ${most:-?} (rxe's own: $BASE_QP): objects leaked"
    # The same scenarios on soft0, run by run-rxe-tests on the host (faster than here).
    cp target/vm/soft0-loopback-all.out "$LOGS/loopback_all.soft0" 2>/dev/null \
        || problems="$problems\n    target/vm/soft0-loopback-all.out is missing (run-rxe-tests writes it)"
    outcome "$LOGS/loopback_all.rxe0" >"$LOGS/loopback_all.rxe0.outcome"
    outcome "$LOGS/loopback_all.soft0" >"$LOGS/loopback_all.soft0.outcome"
    if ! diff -u "$LOGS/loopback_all.soft0.outcome" "$LOGS/loopback_all.rxe0.outcome" >"$LOGS/loopback_all.diff"; then
        problems="$problems\n    completions or QP states differ between soft0 and rxe0 (- soft0, + rxe0):\n$(sed 's/^/      /' "$LOGS/loopback_all.diff")"
    fi
}

test_gallery_rxe0() {
    # The window's Lessons › Scenarios gallery on rxe0, as a user picks rxe0 in its Device list and
    # presses Run to the end on each scenario: the same eleven outcomes as loopback's, checked by the
    # window's model, headless (GalleryOnDevice in the test classes; Monocle draws without a display).
    [ -d target/test-classes/org/rdmalab/app/lessons ] \
        || { problems="$problems\n    target/test-classes is missing (mvn package builds it)"; return; }
    java "${JAVA_OPTS[@]}" -cp "$JAR:target/test-classes" org.rdmalab.app.lessons.GalleryOnDevice rxe0 \
        >"$LOGS/gallery_rxe0.out" 2>&1
    expect_status "GalleryOnDevice rxe0" "$?" 0
    local name
    for name in seed bulk send atomic bad-rkey out-of-bounds mr-no-remote-write qp-no-remote-write rnr \
            retry-exceeded bad-transition; do
        grep -Eq "^$name +CHECKED as expected" "$LOGS/gallery_rxe0.out" \
            || problems="$problems\n    $name: $(grep -E "^$name " "$LOGS/gallery_rxe0.out" || echo 'no line')"
    done
}

# Two more rxe devices on the two ends of a veth pair, so that packets really cross an interface
# and tcpdump sees them: rxeA on vethA (10.2.0.1), rxeB on vethB (10.3.0.1). Both addresses are
# local, so the kernel must accept packets from a local source (accept_local) and not filter them
# by reverse path (rp_filter), or RTR fails and nothing crosses.
veth_up() {
    [ -e /sys/class/infiniband/rxeB ] && return 0
    ip link add vethA type veth peer name vethB && ip addr add 10.2.0.1/24 dev vethA \
        && ip addr add 10.3.0.1/24 dev vethB && ip link set vethA up && ip link set vethB up || return 1
    local c
    for c in all default vethA vethB; do
        echo 1 >/proc/sys/net/ipv4/conf/$c/accept_local; echo 0 >/proc/sys/net/ipv4/conf/$c/rp_filter
    done
    rdma link add rxeA type rxe netdev vethA && rdma link add rxeB type rxe netdev vethB
}

# The packets of a capture, as `pcap inspect` lists them, with what differs by nature between two
# runs taken out: addresses and ports become S (the server) and C (the client); QPNs, virtual
# addresses and rkeys become their field names.
packets() { # packets FILE SERVER_IP
    sed -E -n '/ICRC/ {
        s/^[0-9]+ //
        s/'"$2"':[0-9]+/S/g; s/[0-9]+(\.[0-9]+){3}:[0-9]+/C/g
        s/qp 0x[0-9a-f]+/qp/; s/va 0x[0-9a-f]+/va/; s/rkey 0x[0-9a-f]+/rkey/
        p }' "$1"
}

test_wire_seed() {
    local soft=target/vm/soft0-seed.pcap
    [ -s "$soft" ] || { problems="$problems\n    $soft is missing (run-rxe-tests captures it on this machine)"; return; }
    veth_up || { problems="$problems\n    could not set up rxeA / rxeB on a veth pair"; return; }
    tcpdump -i vethA -U -w "$LOGS/wire_seed.rxe.pcap" udp port 4791 2>"$LOGS/wire_seed.tcpdump" &
    local dump=$! n=0
    while ! grep -q "listening on" "$LOGS/wire_seed.tcpdump" && [ $n -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
    PORT=12025
    peers wire_seed lab demo 10.2.0.1 rxeA "${WAIT[@]}" -- lab demo 10.3.0.1 rxeB 10.2.0.1 "${WAIT[@]}"
    sleep 1; kill -INT "$dump"; wait "$dump"
    expect_status "demo server on rxeA" "$server_status" 0
    expect_status "demo client on rxeB" "$client_status" 0
    expect wire_seed.server "Contents of server buffer: 'HelloWorld'"
    # Every ICRC the kernel wrote verifies, and the packets are those soft0 sends for the same run.
    lab pcap inspect "$LOGS/wire_seed.rxe.pcap" >"$LOGS/wire_seed.inspect.rxe" 2>&1
    expect_status "pcap inspect of rxe's frames" $? 0
    expect wire_seed.inspect.rxe "0 ICRC bad, 0 malformed"
    lab pcap inspect "$soft" >"$LOGS/wire_seed.inspect.soft0" 2>&1
    expect_status "pcap inspect of soft0's frames" $? 0
    packets "$LOGS/wire_seed.inspect.rxe" 10.2.0.1 >"$LOGS/wire_seed.rxe.packets"
    packets "$LOGS/wire_seed.inspect.soft0" 127.0.0.41 >"$LOGS/wire_seed.soft0.packets"
    [ -s "$LOGS/wire_seed.rxe.packets" ] || problems="$problems\n    tcpdump caught no RoCE v2 frame on vethA"
    if ! diff -u "$LOGS/wire_seed.soft0.packets" "$LOGS/wire_seed.rxe.packets" >"$LOGS/wire_seed.diff"; then
        problems="$problems\n    the packets differ (- soft0, + rxe):\n$(sed 's/^/      /' "$LOGS/wire_seed.diff")"
    fi
}

# hw_counters DEV: "name value" for each counter rxe keeps on DEV's port 1.
hw_counters() {
    local f
    for f in /sys/class/infiniband/"$1"/ports/1/hw_counters/*; do
        echo "$(basename "$f") $(cat "$f")"
    done
}

# counter_table SERVER-BEFORE SERVER-AFTER CLIENT-BEFORE CLIENT-AFTER: the counters that moved, as
# "name server client" lines in name order (the deltas), like the table `loopback` prints.
counter_table() {
    awk 'FNR == 1 { file++ } { v[file, $1] = $2; names[$1] = 1 }
        END { for (n in names) { s = v[2, n] - v[1, n]; c = v[4, n] - v[3, n];
              if (s != 0 || c != 0) print n, s, c } }' "$@" | sort
}

# The counter table of `loopback` output: the lines between "counters (hw_counters)" and the blank line.
lab_counter_table() {
    sed -n '/^counters (hw_counters)/,/^$/ { /^  [a-z_]/ { s/^  //; s/  */ /g; p } }' "$1" | sort
}

# What of a capture two runs must share: each direction's packets in order (how ACKs interleave
# with requests depends on timing), and after the first NAK of PSN P nothing but requests up to
# P (whether requests posted behind the one that failed left before the NAK arrived depends on
# timing too, and so does where a capture writes them).
wire_view() { # wire_view PACKETS-FILE (from packets)
    awk '/^RoCEv2 packets/ { next }
        { line[++n] = $0; for (i = 1; i < NF; i++) if ($i == "psn") psn[n] = $(i + 1) + 0 }
        nak == 0 && / AETH (NAK|RNR-NAK) / { nak = n }
        END {
            for (i = 1; i <= n; i++) { split(line[i], f, " ")
                if (f[1] == "C" && (nak == 0 || psn[i] <= psn[nak])) print line[i] }
            for (i = 1; i <= n; i++) { split(line[i], f, " ")
                if (f[1] != "C" && (nak == 0 || i <= nak)) print line[i] }
        }' "$1"
}

# Scenarios the comparison covers, run on soft0 on this machine by run-rxe-tests
# (target/vm/soft0-wire-NAME.pcap and .out) and here on rxeA (server) and rxeB (client).
WIRE_SCENARIOS="bulk send atomic bad-rkey rnr"

test_wire_scenarios() {
    veth_up || { problems="$problems\n    could not set up rxeA / rxeB on a veth pair"; return; }
    local name soft out dump n status
    for name in $WIRE_SCENARIOS; do
        soft=target/vm/soft0-wire-$name out=$LOGS/wire_scenarios.$name
        [ -s "$soft.pcap" ] || { problems="$problems\n    $soft.pcap is missing (run-rxe-tests captures it)"; continue; }
        hw_counters rxeA >"$out.rxeA.before"; hw_counters rxeB >"$out.rxeB.before"
        tcpdump -i vethA -U -w "$out.pcap" udp port 4791 2>"$out.tcpdump" &
        dump=$! n=0
        while ! grep -q "listening on" "$out.tcpdump" && [ $n -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
        lab loopback --scenario "$name" --device rxeA --client-device rxeB --server-address 10.2.0.1 \
            --client-address 10.3.0.1 >"$out.rxe" 2>&1
        status=$?
        sleep 1; kill -INT "$dump"; wait "$dump"
        hw_counters rxeA >"$out.rxeA.after"; hw_counters rxeB >"$out.rxeB.after"
        expect_status "$name on rxeA/rxeB" "$status" 0
        lab pcap inspect "$out.pcap" >"$out.inspect.rxe" 2>&1
        expect_status "pcap inspect of rxe's $name frames" $? 0
        expect "wire_scenarios.$name.inspect.rxe" "0 ICRC bad, 0 malformed"
        lab pcap inspect "$soft.pcap" >"$out.inspect.soft0" 2>&1
        packets "$out.inspect.rxe" 10.2.0.1 >"$out.rxe.all"
        packets "$out.inspect.soft0" 127.0.0.45 >"$out.soft0.all"
        wire_view "$out.rxe.all" >"$out.rxe.packets"; wire_view "$out.soft0.all" >"$out.soft0.packets"
        [ -s "$out.rxe.packets" ] || problems="$problems\n    $name: tcpdump caught no RoCE v2 frame on vethA"
        if ! diff -u "$out.soft0.packets" "$out.rxe.packets" >"$out.packets.diff"; then
            problems="$problems\n    $name: the packets differ (- soft0, + rxe):\n$(head -40 "$out.packets.diff" | sed 's/^/      /')"
        fi
        outcome "$out.rxe" >"$out.rxe.outcome"; outcome "$soft.out" >"$out.soft0.outcome"
        if ! diff -u "$out.soft0.outcome" "$out.rxe.outcome" >"$out.outcome.diff"; then
            problems="$problems\n    $name: completions or QP states differ (- soft0, + rxe):\n$(sed 's/^/      /' "$out.outcome.diff")"
        fi
        counter_table "$out.rxeA.before" "$out.rxeA.after" "$out.rxeB.before" "$out.rxeB.after" >"$out.rxe.counters"
        lab_counter_table "$soft.out" >"$out.soft0.counters"
        # The table loopback printed for rxeA / rxeB is what sysfs counted during the run.
        lab_counter_table "$out.rxe" >"$out.rxe.printed"
        diff -u "$out.rxe.counters" "$out.rxe.printed" >"$out.printed.diff" \
            || problems="$problems\n    $name: loopback's counter table is not what sysfs counted (- sysfs, + printed):\n$(sed 's/^/      /' "$out.printed.diff")"
        # After an error NAK the packet counts depend on timing as the packets do (a READ posted
        # behind the failing WRITE may leave, and then arrive at a QP already in ERR, which soft0
        # counts in its own rcvd_qp_not_ready): those scenarios compare the other counters.
        if grep -q " AETH \(NAK\|RNR-NAK\) " "$out.rxe.all" "$out.soft0.all"; then
            for f in "$out.soft0.counters" "$out.rxe.counters"; do
                grep -Ev '^(sent_pkts|rcvd_pkts|rcvd_qp_not_ready) ' "$f" >"$f.compared"; mv "$f.compared" "$f"
            done
        fi
        if ! diff -u "$out.soft0.counters" "$out.rxe.counters" >"$out.counters.diff"; then
            problems="$problems\n    $name: the counters differ (name server client; - soft0, + rxe):\n$(sed 's/^/      /' "$out.counters.diff")"
        fi
    done
}

# A bulk WRITE and READ of 64 packets each with 2 % loss each way on the veth (tc netem): rxe
# recovers, every byte verifies and every ICRC the kernel wrote verifies. soft0's run with --fault drop=0.02 on this machine must end the same way. (With
# 5 % loss and 256-packet messages rxe ran out of retry_cnt here, one retry per sequence NAK, while
# soft0 completed: see docs/softroce.md.) Besides netem's random loss, nft drops the first RDMA
# WRITE MIDDLE packet that reaches the server and the first RDMA READ response MIDDLE that reaches
# the client, after tcpdump saw them: the capture then always holds a WRITE packet sent again and
# a READ asked again, which check-rxe-captures (run-rxe-tests, on this machine) compares with
# what `pcap ladder --json` marks.
ladder_drops() { # ladder_drops: the two deterministic drops (nft input hook, one packet each)
    nft add table inet ladder_drop \
        && nft add set inet ladder_drop once '{ type ipv4_addr; flags dynamic; }' \
        && nft add chain inet ladder_drop input '{ type filter hook input priority 0; }' \
        && nft add rule inet ladder_drop input ip saddr 10.3.0.1 udp dport 4791 @th,64,8 7 \
            ip saddr != @once add @once '{ ip saddr }' counter drop \
        && nft add rule inet ladder_drop input ip saddr 10.2.0.1 udp dport 4791 @th,64,8 14 \
            ip saddr != @once add @once '{ ip saddr }' counter drop
}
test_wire_bulk_loss() {
    veth_up || { problems="$problems\n    could not set up rxeA / rxeB on a veth pair"; return; }
    local out=$LOGS/wire_bulk_loss dump n status
    hw_counters rxeA >"$out.rxeA.before"; hw_counters rxeB >"$out.rxeB.before"
    tc qdisc add dev vethA root netem loss 2% && tc qdisc add dev vethB root netem loss 2% \
        || { problems="$problems\n    tc netem could not add loss on the veth pair"; return; }
    ladder_drops 2>"$out.nft" || problems="$problems\n    nft could not add the two drops: $(head -3 "$out.nft")"
    tcpdump -i vethA -U -w "$out.pcap" udp port 4791 2>"$out.tcpdump" &
    dump=$! n=0
    while ! grep -q "listening on" "$out.tcpdump" && [ $n -lt 100 ]; do sleep 0.2; n=$((n + 1)); done
    lab loopback --scenario bulk --size 64K --mtu 1024 --poll-timeout 20000 --device rxeA --client-device rxeB \
        --server-address 10.2.0.1 --client-address 10.3.0.1 >"$out.rxe" 2>&1
    status=$?
    sleep 1; kill -INT "$dump"; wait "$dump"
    # netem's own count of what it dropped ("Sent ... (dropped N, ...)"), before the qdiscs go.
    local dropped
    dropped=$( { tc -s qdisc show dev vethA; tc -s qdisc show dev vethB; } \
        | sed -n 's/.*(dropped \([0-9]*\),.*/\1/p' | awk '{ n += $1 } END { print n + 0 }')
    echo "netem dropped $dropped packets" >"$out.netem"
    tc qdisc del dev vethA root; tc qdisc del dev vethB root
    nft list table inet ladder_drop >>"$out.nft" 2>&1; nft delete table inet ladder_drop 2>/dev/null
    [ "$(grep -c 'counter packets 1 ' "$out.nft")" = 2 ] \
        || problems="$problems\n    nft did not drop one WRITE and one READ response packet:\n$(grep counter "$out.nft" | sed 's/^/      /')"
    hw_counters rxeA >"$out.rxeA.after"; hw_counters rxeB >"$out.rxeB.after"
    expect_status "bulk with 2 % loss on rxeA/rxeB" "$status" 0
    expect wire_bulk_loss.rxe "result: as expected"
    lab pcap inspect "$out.pcap" >"$out.inspect" 2>&1
    expect_status "pcap inspect of the lossy bulk" $? 0
    expect wire_bulk_loss.inspect "0 ICRC bad, 0 malformed"
    counter_table "$out.rxeA.before" "$out.rxeA.after" "$out.rxeB.before" "$out.rxeB.after" >"$out.counters"
    # What the loss cost, for the log (a lost ACK that a later one covers costs nothing, so no count
    # is asserted).
    echo "    netem dropped $dropped packets; rxe counted (server client): $(tr '\n' ';' <"$out.counters")"
    cp target/vm/soft0-wire-bulk-loss.out "$out.soft0" 2>/dev/null \
        || problems="$problems\n    target/vm/soft0-wire-bulk-loss.out is missing (run-rxe-tests writes it)"
    expect wire_bulk_loss.soft0 "result: as expected"
}

# bench on rxe0 beside perftest's ib_write_bw and ib_write_lat in the same VM, server on $IP1 and
# client on $IP2, same sizes and counts. The figures are reported, not asserted (an emulated CPU).
# perftest runs before and after bench and bench is set beside the mean of the two: in the VM one
# tool run to the next moves by 15 % (docs/performance.md, the native bench against perftest), and
# 2 000 messages, not 500, keep a few scheduling hiccups from being a tenth of the figure.
test_bench_vs_perftest() {
    local out=$LOGS/bench_vs_perftest n=2000
    PORT=18515
    between_perftests bw ib_write_bw "#bytes     #iterations    BW peak[MB/sec]" -d rxe0 -s 65536 -n $n
    between_perftests lat ib_write_lat "t_typical[usec]" -d rxe0 -s 8 -n $n
    # The rows, side by side, for the log: the result line under each table's head (bench also
    # prints progress lines there), then bench's BW average and t_typical over perftest's mean.
    local f
    for f in ib_write_bw1 bench_bw ib_write_bw2 ib_write_lat1 bench_lat ib_write_lat2; do
        echo "    $f: $(result_row "$out.$f.client" | tr -s ' \t' ' ')"
    done
    echo "    bench / perftest: BW average $(ratio 4 bw), t_typical $(ratio 5 lat), 99% $(ratio 8 lat)"
}

# between_perftests KIND TOOL HEAD ARGS...: perftest's TOOL, then bench write --KIND, then TOOL
# again, each with ARGS; bench's client must print HEAD.
between_perftests() {
    local kind=$1 tool=$2 head=$3 round
    shift 3
    for round in 1 2; do
        peers "bench_vs_perftest.$tool$round" "$tool" -x 1 "$@" -- "$tool" -x 2 "$@" "$IP1"
        expect_status "$tool client (round $round)" "$client_status" 0
        [ $round = 2 ] && break
        peers "bench_vs_perftest.bench_$kind" lab bench write "--$kind" "$@" --local-ip "$IP1" --timeout 600 \
            -- lab bench write "--$kind" "$@" --local-ip "$IP2" --timeout 600 "$IP1"
        expect_status "bench write --$kind server" "$server_status" 0
        expect_status "bench write --$kind client" "$client_status" 0
        expect "bench_vs_perftest.bench_$kind.client" "$head"
    done
}

# result_row FILE: the first row under the table's head that starts with a number (bench prints
# progress lines between the head and its result).
result_row() {
    sed -n '/#bytes/,$p' "$1" | grep -m1 -E '^ *[0-9]+ +[0-9]+ '
}

# ratio FIELD bw|lat: bench's FIELD over the mean of the two perftest rounds' FIELD.
ratio() {
    local field=$1 kind=$2 tool=ib_write_lat
    [ "$kind" = bw ] && tool=ib_write_bw
    local out=$LOGS/bench_vs_perftest
    awk -v f="$field" -v b="$(result_row "$out.bench_$kind.client")" -v p1="$(result_row "$out.${tool}1.client")" \
        -v p2="$(result_row "$out.${tool}2.client")" 'BEGIN {
            split(b, x); split(p1, y); split(p2, z)
            if (x[f] == "" || y[f] + z[f] == 0) { print "n/a"; exit }
            printf "%.2f (%s against %s and %s)", x[f] / ((y[f] + z[f]) / 2), x[f], y[f], z[f] }'
}

# perftest_pair CASE BYTES "SIDES" SERVER... -- CLIENT...: one bench_perftest_peer case (-n 500):
# both sides exit 0, and each of SIDES (server, client) printed a row of BYTES bytes and ROWS
# iterations (default 500; -q 2 rows count both QPs' messages).
perftest_pair() {
    local name=$1 bytes=$2 sides=$3 side
    shift 3
    perftest_cases+=("$name")
    peers "bench_perftest_peer.$name" "$@"
    expect_status "bench_perftest_peer.$name server" "$server_status" 0
    expect_status "bench_perftest_peer.$name client" "$client_status" 0
    for side in $sides; do
        expect_row "bench_perftest_peer.$name.$side" "$bytes" "${ROWS:-500}"
    done
}

# bench --perftest with a real perftest binary as the other side, either way round: perftest's TCP
# exchange byte for byte (versions, system data, MTU, keys, barriers, the bandwidth report), the
# ib_write_lat loop's counting bytes and ib_send_*'s exact counts. perftest prints the rows it gets
# or measures itself.
test_bench_perftest_peer() {
    local out=$LOGS/bench_perftest_peer
    local perftest_cases=()
    PORT=18515
    perftest_pair bw_lab_client 65536 "server client" ib_write_bw -d rxe0 -x 1 -s 65536 -n 500 \
        -- lab bench write --bw --perftest -d rxe0 --local-ip "$IP2" -s 65536 -n 500 --timeout 600 "$IP1"
    expect bench_perftest_peer.bw_lab_client.client "the peer announces perftest 6.06"
    # bw_lab_server: the server's row is its client's, from the report perftest sent.
    perftest_pair bw_lab_server 65536 "client server" lab bench write --bw --perftest -d rxe0 --local-ip "$IP1" \
        -s 65536 -n 500 --timeout 600 -- ib_write_bw -d rxe0 -x 2 -s 65536 -n 500 "$IP1"
    perftest_pair lat_lab_client 8 "server client" ib_write_lat -d rxe0 -x 1 -s 8 -n 500 \
        -- lab bench write --lat --perftest -d rxe0 --local-ip "$IP2" -s 8 -n 500 --timeout 600 "$IP1"
    perftest_pair lat_lab_server 8 "client server" lab bench write --lat --perftest -d rxe0 --local-ip "$IP1" \
        -s 8 -n 500 --timeout 600 -- ib_write_lat -d rxe0 -x 2 -s 8 -n 500 "$IP1"
    # ib_read_bw and ib_read_lat: one-sided, so each server waits in perftest's barriers while its
    # client measures; a read_bw server prints its client's row.
    perftest_pair read_bw_lab_client 4096 "server client" ib_read_bw -d rxe0 -x 1 -s 4096 -n 500 \
        -- lab bench read --bw --perftest -d rxe0 --local-ip "$IP2" -s 4096 -n 500 --timeout 600 "$IP1"
    perftest_pair read_lat_lab_server 8 "client" lab bench read --lat --perftest -d rxe0 --local-ip "$IP1" -s 8 \
        -n 500 --timeout 600 -- ib_read_lat -d rxe0 -x 2 -s 8 -n 500 "$IP1"
    # ib_send_lat and ib_send_bw: receives posted and a barrier per size, exactly -n SENDs; both
    # sides print a row.
    perftest_pair send_lat_lab_client 8 "server client" ib_send_lat -d rxe0 -x 1 -s 8 -n 500 \
        -- lab bench send --lat --perftest -d rxe0 --local-ip "$IP2" -s 8 -n 500 --timeout 600 "$IP1"
    perftest_pair send_bw_lab_server 4096 "client server" lab bench send --bw --perftest -d rxe0 --local-ip "$IP1" \
        -s 4096 -n 500 --timeout 600 -- ib_send_bw -d rxe0 -x 2 -s 4096 -n 500 "$IP1"
    perftest_pair send_bw_lab_client 4096 "server client" ib_send_bw -d rxe0 -x 1 -s 4096 -n 500 \
        -- lab bench send --bw --perftest -d rxe0 --local-ip "$IP2" -s 4096 -n 500 --timeout 600 "$IP1"
    # ib_atomic_bw and ib_atomic_lat follow the READ steps (8-byte fetch-and-add).
    perftest_pair atomic_bw_lab_client 8 "server client" ib_atomic_bw -d rxe0 -x 1 -n 500 \
        -- lab bench atomic --bw --perftest -d rxe0 --local-ip "$IP2" -n 500 --timeout 600 "$IP1"
    perftest_pair atomic_lat_lab_server 8 "client" lab bench atomic --lat --perftest -d rxe0 --local-ip "$IP1" \
        -n 500 --timeout 600 -- ib_atomic_lat -d rxe0 -x 2 -n 500 "$IP1"
    # -q 2: the keys per QP, each QP's -n, rows of -n x 2 on both sides (the server's is its client's).
    ROWS=1000 perftest_pair bw_q2_lab_client 4096 "server client" ib_write_bw -d rxe0 -x 1 -s 4096 -n 500 -q 2 \
        -- lab bench write --bw --perftest -q 2 -d rxe0 --local-ip "$IP2" -s 4096 -n 500 --timeout 600 "$IP1"
    # Each RDMA Lab QP announces a landing slot of its own, as perftest's do.
    expect_vaddrs bench_perftest_peer.bw_q2_lab_client.server 2
    # -b: both sides measure and print both directions summed; SEND -b with two QPs as well.
    perftest_pair bw_b_lab_server 4096 "client server" lab bench write --bw --perftest -b -d rxe0 --local-ip "$IP1" \
        -s 4096 -n 500 --timeout 600 -- ib_write_bw -d rxe0 -x 2 -s 4096 -n 500 -b "$IP1"
    ROWS=1000 perftest_pair send_bw_b_q2_lab_client 1024 "server client" ib_send_bw -d rxe0 -x 1 -s 1024 -n 500 -b -q 2 \
        -- lab bench send --bw --perftest -b -q 2 -d rxe0 --local-ip "$IP2" -s 1024 -n 500 --timeout 600 "$IP1"
    # --run_infinitely, ended by a Ctrl-C as perftest's is (the JVM's start and the exchange take
    # several seconds of the emulated VM: the Java client gets 30 s). An RDMA Lab client: rows every
    # 2 s with BW peak 0.00 and its closing line, exit 130 (the JVM's status after SIGINT);
    # ib_write_bw's server then fails to read its client's keys, as when its own client is killed.
    # An RDMA Lab SEND server: rows of what arrived, until its ib_send_bw client's Ctrl-C closes the
    # connection; it ends as stopped, exit 0.
    perftest_cases+=(inf_lab_client inf_lab_server)
    peers bench_perftest_peer.inf_lab_client ib_write_bw -d rxe0 -x 1 -s 4096 --run_infinitely -D 2 \
        -- timeout --preserve-status -s INT 30 java "${JAVA_OPTS[@]}" -jar "$JAR" bench write --bw --perftest \
        --run_infinitely -D 2 -d rxe0 --local-ip "$IP2" -s 4096 --timeout 600 "$IP1"
    expect_status "bench_perftest_peer.inf_lab_client client" "$client_status" 130
    expect_status "bench_perftest_peer.inf_lab_client server (ib_write_bw)" "$server_status" 1
    grep -Eq "^ 4096 +[1-9][0-9]* +0\.00 +[0-9.]+" "$LOGS/bench_perftest_peer.inf_lab_client.client" \
        || problems="$problems\n    bench_perftest_peer.inf_lab_client.client lacks an interval row with BW peak 0.00"
    expect bench_perftest_peer.inf_lab_client.client "stopped after "
    expect bench_perftest_peer.inf_lab_client.server "Couldn't read remote address"
    peers bench_perftest_peer.inf_lab_server lab bench send --bw --perftest --run_infinitely -D 2 -d rxe0 \
        --local-ip "$IP1" -s 1024 --timeout 600 \
        -- timeout -s INT 9 ib_send_bw -d rxe0 -x 2 -s 1024 --run_infinitely -D 2 "$IP1"
    expect_status "bench_perftest_peer.inf_lab_server server" "$server_status" 0
    grep -Eq "^ 1024 +[1-9][0-9]* +0\.00 +[0-9.]+" "$LOGS/bench_perftest_peer.inf_lab_server.server" \
        || problems="$problems\n    bench_perftest_peer.inf_lab_server.server lacks an interval row of what arrived"
    expect bench_perftest_peer.inf_lab_server.server "the perftest client ended the run after"
    local f
    for f in "${perftest_cases[@]}"; do
        echo "    $f: perftest $(grep -h -A1 -E '#bytes' "$out.$f".* | grep -E '^ [0-9]' | tr -s ' ' | paste -sd'|')"
    done
}

# ------------------------------------------------------------------------------------------ doctor
# `doctor` on real rxe0: healthy, then each cause one machine can show, set up here and undone after.
# Every case asserts the line the user reads. (The causes between two machines, a GID type or MTU
# mismatch and the probe's black hole, are in rxe-pair.sh, on two VMs.)
doctor_case() { # doctor_case CASE EXPECTED-STATUS [env ...] -- doctor arguments
    local case=$1 want=$2 envs=()
    shift 2
    while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
    env "${envs[@]}" java "${JAVA_OPTS[@]}" -jar "$JAR" doctor "$@" >"$LOGS/doctor.$case" 2>&1
    expect_status "doctor ($case)" $? "$want"
}

test_doctor() {
    local lib=/usr/lib/x86_64-linux-gnu/libibverbs provider
    provider=$(ls "$lib"/librxe-rdmav*.so 2>/dev/null | head -1)
    # Healthy: every check passes, and the GID line names the entry that carries the address.
    doctor_case healthy 0 -- "$IP1" rxe0
    expect doctor.healthy "✓ provider rxe0: found $provider"
    expect doctor.healthy "✓ GID: $IP1 is GID[1] ::ffff:$IP1 RoCE v2"
    expect doctor.healthy "✓ firewall: no rule drops UDP 4791"
    expect doctor.healthy "result: all "

    # A firewall rule that drops RoCE v2 (nft in the guest).
    nft add table inet doctor_test \
        && nft add chain inet doctor_test input '{ type filter hook input priority 0; }' \
        && nft add rule inet doctor_test input udp dport 4791 drop \
        || problems="$problems\n    could not add the nft rule"
    doctor_case firewall 1 -- "$IP1" rxe0
    nft delete table inet doctor_test
    expect doctor.firewall "✗ firewall: a rule drops RoCE v2 (UDP 4791): nft: udp dport 4791 drop"
    expect doctor.firewall "    fix: delete that rule"
    expect doctor.firewall "result: 1 of "

    # A user that is not root, with ulimit -l 32 (KiB): the doctor names the limit, and a real
    # registration of the lab's 64 KiB buffer fails with ENOMEM. The device node is opened to all
    # for the case, so that the memlock check is the one that fails.
    local node mode
    node=/dev/infiniband/$(grep -lx rxe0 /sys/class/infiniband_verbs/*/ibdev | head -1 | xargs dirname | xargs basename)
    mode=$(stat -c %a "$node")
    chmod 666 "$node"
    as_nobody() { ( ulimit -l 32 && exec setpriv --reuid=65534 --regid=65534 --clear-groups "$@" ); }
    # uid 65534 runs a copy of the jar: the checkout may sit in a directory only root can read.
    local readable
    readable=$(mktemp -d /tmp/rdmalab-nobody.XXXXXX) && chmod 755 "$readable" \
        && install -m 644 "$JAR" "$readable/rdma-lab.jar"
    as_nobody env HOME=/tmp java "${JAVA_OPTS[@]}" -XX:-UsePerfData -jar "$readable/rdma-lab.jar" doctor "$IP1" rxe0 \
        >"$LOGS/doctor.memlock" 2>&1
    expect_status "doctor (memlock, uid 65534)" $? 1
    as_nobody env HOME=/tmp java "${JAVA_OPTS[@]}" -XX:-UsePerfData -jar "$readable/rdma-lab.jar" loopback \
        --device rxe0 --scenario bulk --server-address "$IP1" --client-address "$IP2" \
        >"$LOGS/doctor.memlock-loopback" 2>&1
    expect_status "loopback bulk (memlock, uid 65534)" $? 1
    rm -rf "$readable"
    chmod "$mode" "$node"
    expect doctor.memlock "✗ memlock: ulimit -l is 32 KiB for uid 65534, below the 72 KiB"
    expect doctor.memlock "ibv_reg_mr fails with ENOMEM"
    expect doctor.memlock "✓ device node rxe0:"
    expect doctor.memlock "result: 1 of "
    expect doctor.memlock-loopback "ENOMEM"

    # The provider library is missing: its folder is hidden under an empty tmpfs.
    mkdir -p /tmp/provider && cp "$provider" /tmp/provider/
    mount -t tmpfs -o ro tmpfs "$lib" || problems="$problems\n    could not hide $lib"
    ibv_devices >"$LOGS/doctor.no-provider.ibv_devices" 2>&1
    doctor_case no-provider 1 -- "$IP1" rxe0
    # ... and found again through LD_LIBRARY_PATH, where libibverbs looks next.
    doctor_case provider-path 0 LD_LIBRARY_PATH=/tmp/provider -- "$IP1" rxe0
    umount "$lib"
    expect doctor.no-provider "✗ provider rxe0: no librxe-rdmav*.so in any libibverbs folder or on the library path"
    expect doctor.no-provider.ibv_devices "couldn't load driver 'librxe-rdmav"
    expect doctor.no-provider "(it warns: couldn't load driver 'librxe-rdmav*.so')"
    expect doctor.provider-path "✓ provider rxe0: found /tmp/provider/$(basename "$provider")"

    # The config folder names no rxe provider (/etc/libibverbs.d hidden under an empty tmpfs).
    mount -t tmpfs -o ro tmpfs /etc/libibverbs.d || problems="$problems\n    could not hide /etc/libibverbs.d"
    ibv_devices >"$LOGS/doctor.no-config.ibv_devices" 2>&1
    doctor_case no-config 1 -- "$IP1" rxe0
    umount /etc/libibverbs.d
    expect doctor.no-config "✗ provider rxe0:"
}

test_no_leftovers() {
    rdma resource show >"$LOGS/no_leftovers.out" 2>&1
    grep -q "^$BASE_LINE\$" "$LOGS/no_leftovers.out" \
        || problems="$problems\n    after the runs: $(grep rxe0 "$LOGS/no_leftovers.out"), before: $BASE_LINE"
}

# ------------------------------------------------------------------------------------------ main
ALL="devices demo_seed demo_lab demo_pingpong pingpong_vs_ibv_rc_pingpong seed_c_vs_demo loopback_all gallery_rxe0 wire_seed wire_scenarios wire_bulk_loss bench_vs_perftest bench_perftest_peer doctor no_leftovers"
TESTS=${*:-$ALL}
echo "kernel $(uname -r), $(nproc) CPUs; rxe0 on eth0 with $IP1 and $IP2; $(java -version 2>&1 | head -1)"
# What rxe holds before any test: its own PD, CQ and QP1. Every run must leave exactly this.
BASE_LINE=$(rdma resource show | grep rxe0)
BASE_QP=$(echo "$BASE_LINE" | sed -n 's/.* qp \([0-9]*\) .*/\1/p')
echo "rdma resource before the tests: $BASE_LINE"
# speed_probe WHEN: the same small work timed in every run, so that a run whose emulated machine is
# slow from the start (or slows down) says so beside its tests' figures.
speed_probe() {
    local t0 t1 t2 t3
    t0=$(now); awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i }'; t1=$(since "$t0")
    t0=$(now); java "${JAVA_OPTS[@]}" -version >/dev/null 2>&1; t2=$(since "$t0")
    # Compiled Java beside the shell's C: a VM slow for the JVM's own code alone shows it here.
    t3=$(java "${JAVA_OPTS[@]}" -cp target/test-classes org.rdmalab.testing.SpinProbe 2>/dev/null || echo "java loop: n/a")
    echo "speed probe $1: 2 M awk additions $t1 s, java -version $t2 s, $t3"
}
speed_probe "before the tests"
for t in $TESTS; do
    case " $ALL " in *" $t "*) ;; *) echo "unknown test $t; tests: $ALL"; exit 2 ;; esac
    [ "$t" = seed_c_vs_demo ] && [ ! -x "$SEED" ] && { echo "FAIL seed_c_vs_demo: $SEED is missing"; failed=$((failed + 1)); continue; }
    run_test "$t"
done
speed_probe "after the tests"
echo "rxe tests: $passed passed, $failed failed${failures:+ (failed:$failures)}"
[ "$failed" = 0 ]
