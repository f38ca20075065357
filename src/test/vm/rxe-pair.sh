#!/usr/bin/env bash
# rxe-pair.sh: the README's two-workstation recipe on two VMs with rxe (src/test/vm/rxe-vm --pair).
# VM a (10.1.0.1) runs `demo` servers, VM b (10.1.0.2) the clients, over one virtual Ethernet, with
# the seed protocol and then with the lab protocol. run-rxe-tests starts it:
#
#   src/test/vm/rxe-vm --pair 'bash src/test/vm/rxe-pair.sh' 'bash src/test/vm/rxe-pair.sh'
set -u
[ "${RXE_VM:-}" = 1 ] || { echo "rxe-pair.sh: run me in the VMs: src/test/vm/rxe-vm --pair ..." >&2; exit 2; }
LOGS=target/rxe-vm-pair
mkdir -p "$LOGS"
lab() { java -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -jar target/rdma-lab.jar "$@"; }
failed=0
for protocol in seed lab; do
    if [ "$RXE_VM_NAME" = a ]; then
        out=$LOGS/$protocol.server
        lab demo "$RXE_IP" rxe0 --protocol "$protocol" --timeout 600 >"$out" 2>&1
        status=$?
        want="Contents of server buffer: 'HelloWorld'"
    else
        out=$LOGS/$protocol.client
        lab demo "$RXE_IP" rxe0 "$RXE_PEER_IP" --protocol "$protocol" --timeout 600 >"$out" 2>&1
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
exit "$failed"
