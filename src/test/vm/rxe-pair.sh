#!/usr/bin/env bash
# rxe-pair.sh: the two-workstation recipe (docs/two-machines.md) on two VMs with rxe (src/test/vm/rxe-vm --pair).
# VM a (10.1.0.1) runs `demo` servers, VM b (10.1.0.2) the clients, over one virtual Ethernet, with
# the seed protocol and then with the lab protocol. run-rxe-tests starts it:
#
#   src/test/vm/rxe-vm --pair 'bash src/test/vm/rxe-pair.sh' 'bash src/test/vm/rxe-pair.sh'
#
# Then `doctor --serve` on a and `doctor` with a peer on b: healthy, and each cause between two
# machines (doctor_pair below). RXE_PAIR_PROTOCOLS="" skips the demo runs (doctor's alone).
set -u
[ "${RXE_VM:-}" = 1 ] || { echo "rxe-pair.sh: run me in the VMs: src/test/vm/rxe-vm --pair ..." >&2; exit 2; }
LOGS=target/rxe-vm-pair
mkdir -p "$LOGS"
# Each demo polls a CQ for up to a minute, not the seed's 2 s: two emulated machines on a busy host
# can take longer than that between one peer's step and the other's.
lab() { java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar target/rdma-lab.jar "$@"; }
failed=0
for protocol in ${RXE_PAIR_PROTOCOLS-seed lab}; do
    if [ "$RXE_VM_NAME" = a ]; then
        out=$LOGS/$protocol.server
        lab demo "$RXE_IP" rxe0 --protocol "$protocol" --timeout 600 --poll-timeout 60000 >"$out" 2>&1
        status=$?
        want="Contents of server buffer: 'HelloWorld'"
    else
        out=$LOGS/$protocol.client
        lab demo "$RXE_IP" rxe0 "$RXE_PEER_IP" --protocol "$protocol" --timeout 600 --poll-timeout 60000 >"$out" 2>&1
        status=$?
        want="IBV_WC_SUCCESS opcode IBV_WC_RDMA_WRITE byte_len 11"
    fi
    if [ "$status" = 0 ] && grep -qF "$want" "$out" && grep -qF "(gid_idx auto: the GID of $RXE_IP)" "$out"; then
        echo "PASS two workstations, $protocol protocol ($RXE_VM_NAME: $(grep -m1 'Query port and GID' "$out" | sed 's/.*GID\[/GID[/'))"
    else
        echo "FAIL two workstations, $protocol protocol: exit $status"; tail -8 "$out" | sed 's/^/  | /'
        failed=1
    fi
done
# ------------------------------------------------------------------------------------------ doctor
# `doctor --serve` on VM a, `doctor <local_ip> rxe0 <peer_ip>` on VM b: a healthy pair, then each
# cause that lies between two machines, set up on one VM before its round and undone after. Both
# VMs run the rounds in the same order; b's connect retries until a's next round listens.
doctor_round() { # doctor_round NAME: runs this VM's side of one round into $LOGS/doctor.NAME.<a|b>
    local out=$LOGS/doctor.$1.$RXE_VM_NAME
    if [ "$RXE_VM_NAME" = a ]; then
        lab doctor --serve "$RXE_IP" rxe0 --timeout 600 >"$out" 2>&1
    else
        lab doctor "$RXE_IP" rxe0 "$RXE_PEER_IP" --timeout 600 >"$out" 2>&1
    fi
    doctor_status=$?
    doctor_out=$out doctor_problems=""
}
doctor_expect() { # doctor_expect TEXT: this round's output holds TEXT
    grep -qF -- "$1" "$doctor_out" || doctor_problems="$doctor_problems\n    $(basename "$doctor_out") lacks: $1"
}
doctor_verdict() { # doctor_verdict NAME EXPECTED-STATUS
    [ "$doctor_status" = "$2" ] || doctor_problems="$doctor_problems\n    exit $doctor_status, expected $2"
    if [ -z "$doctor_problems" ]; then
        echo "PASS doctor $1 ($RXE_VM_NAME: $(grep -m1 '^✗' "$doctor_out" || echo 'all checks passed'))"
    else
        echo "FAIL doctor $1 ($RXE_VM_NAME)"; printf "%b\n" "$doctor_problems" | sed '/^$/d'
        tail -25 "$doctor_out" | sed 's/^/  | /'
        failed=1
    fi
}
# The sysfs index of this VM's IPv4 GID (::ffff:a.b.c.d as sysfs writes it).
own_gid_index() {
    local want
    want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${RXE_IP//./ })
    grep -lx "$want" /sys/class/infiniband/rxe0/ports/1/gids/* 2>/dev/null | head -1 | xargs -r basename
}
doctor_pair() {
    local me=$RXE_VM_NAME peer_role
    [ "$me" = a ] && peer_role=client || peer_role=server
    # Healthy: the facts, the comparison and the four probe writes all pass on both sides.
    doctor_round healthy
    doctor_expect "✓ peer: the $peer_role $RXE_PEER_IP answered: rxe0 (libibverbs)"
    doctor_expect "✓ compare GID: both use RoCE v2"
    doctor_expect "✓ compare netdev MTU: both 1500"
    doctor_expect "✓ probe: small write client → server"
    doctor_expect "✓ probe: full write server → client: 1024-byte RDMA WRITE"
    doctor_expect "result: all "
    doctor_verdict healthy 0

    # A firewall on the server drops UDP 4791: the server's own check names the rule, and the
    # probe's first write is a black hole that the server saw no packet of.
    if [ "$me" = a ]; then
        nft add table inet doctor_test \
            && nft add chain inet doctor_test input '{ type filter hook input priority 0; }' \
            && nft add rule inet doctor_test input udp dport 4791 drop || echo "could not add the nft rule"
    fi
    doctor_round firewall
    [ "$me" = a ] && nft delete table inet doctor_test
    [ "$me" = a ] && doctor_expect "✗ firewall: a rule drops RoCE v2 (UDP 4791): nft: udp dport 4791 drop"
    doctor_expect "✗ probe: small write client → server: 16-byte RDMA WRITE client → server: IBV_WC_RETRY_EXC_ERR;"
    doctor_expect "the server saw no packet from 10.1.0.2: a black hole; suspects: a firewall dropping UDP 4791"
    doctor_verdict firewall 1

    # The netdev MTUs differ (1500 on a, 1000 on b).
    [ "$me" = b ] && ip link set dev eth0 mtu 1000
    doctor_round mtu
    [ "$me" = b ] && ip link set dev eth0 mtu 1500
    if [ "$me" = b ]; then
        doctor_expect "✗ compare netdev MTU: netdev MTU 1000 here (eth0), 1500 on the peer (eth0)"
    else
        doctor_expect "✗ compare netdev MTU: netdev MTU 1500 here (eth0), 1000 on the peer (eth0)"
    fi
    doctor_expect "fix: set the same MTU on both: sudo ip link set dev <netdev> mtu 1000"
    doctor_verdict mtu 1
    # One side's GID is RoCE v1. rxe makes RoCE v2 entries only, so VM a shows its entry to the
    # doctor as the kernel shows a v1 one: a file reading "IB/RoCE v1" bound over the entry's type
    # in sysfs (what a NIC with RoCE v1 enabled, or a v1 default mode, lists).
    local index="" type_file=""
    if [ "$me" = a ]; then
        index=$(own_gid_index)
        type_file=/sys/class/infiniband/rxe0/ports/1/gid_attrs/types/$index
        echo "IB/RoCE v1" >/tmp/roce-v1-type
        { [ -n "$index" ] && mount --bind /tmp/roce-v1-type "$type_file"; } \
            || echo "could not show GID ${index:-?} as RoCE v1"
    fi
    doctor_round gid-type
    [ "$me" = a ] && umount "$type_file"
    if [ "$me" = a ]; then
        doctor_expect "✗ GID: $RXE_IP is only in GID[$index] ::ffff:$RXE_IP RoCE v1: RoCE v1 has no IP header"
        doctor_expect "✗ compare GID: this side uses GID[$index] ::ffff:$RXE_IP (RoCE v1), the peer GID["
    else
        doctor_expect "✓ GID: $RXE_IP is GID["
        doctor_expect "(RoCE v2), the peer GID["
    fi
    doctor_expect "RoCE v1 and RoCE v2 do not talk to each other"
    doctor_verdict gid-type 1
}
doctor_pair
exit "$failed"
