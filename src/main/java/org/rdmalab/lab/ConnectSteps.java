package org.rdmalab.lab;

import java.util.Optional;
import org.rdmalab.control.ConnectionData;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Gid;
import org.rdmalab.verbs.GidEntry;
import org.rdmalab.verbs.Mtu;

/** The control plane: TCP connection, exchange of connection data, syncs. */
final class ConnectSteps {

    private ConnectSteps() {
    }

    /** {@code sock_connect}: the server accepts one client, the client connects. */
    static final class Connect extends Step {

        Connect() {
            super("connect", "Connect TCP");
        }

        @Override
        public String cCode(LabSession session) {
            return session.role() == Role.SERVER
                    ? "res->sock = sock_connect(config.local_addr, config.port, NULL);  /* listen, accept one client */"
                    : "res->sock = sock_connect(config.local_addr, config.port, config.server_name);";
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().connected() ? Optional.of(LabPhrase.of("blocked.connected")) : Optional.empty();
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            session.link().connect();
            session.resources().connected(true);
            session.print("TCP connection was established (" + session.link().protocol() + " protocol)");
            return StepResult.ok(LabPhrase.of(session.role() == Role.SERVER ? "result.accepted" : "result.connectedTo",
                    session.link().protocol()));
        }
    }

    /** {@code sock_sync_data} of the connection data. */
    static final class Exchange extends Step {

        private final boolean receiveOnly;
        private final boolean sendOnly;

        private Exchange(String id, String title, boolean receiveOnly, boolean sendOnly) {
            super(id, title);
            this.receiveOnly = receiveOnly;
            this.sendOnly = sendOnly;
        }

        /** Both sides write their data, then read the peer's. */
        static Exchange both() {
            return new Exchange("exchange", "Exchange connection data", false, false);
        }

        /** Receive the peer's data (ibv_rc_pingpong's server: before RTR). */
        static Exchange receive() {
            return new Exchange("receive-data", "Receive the peer's connection data", true, false);
        }

        /** Send this side's data (ibv_rc_pingpong's server: after RTS). */
        static Exchange send() {
            return new Exchange("send-data", "Send connection data", false, true);
        }

        @Override
        public String cCode(LabSession session) {
            return """
                    local_con_data.addr = htonll((uintptr_t) res->buf);
                    local_con_data.rkey = htonl(res->mr->rkey);
                    local_con_data.qp_num = htonl(res->qp->qp_num);
                    local_con_data.lid = htons(res->port_attr.lid);
                    memcpy(local_con_data.gid, &my_gid, 16);
                    rc = sock_sync_data(res->sock, sizeof(struct cm_con_data_t),
                                        (char *) &local_con_data, (char *) &tmp_con_data);
                    remote_con_data.addr = ntohll(tmp_con_data.addr);
                    remote_con_data.rkey = ntohl(tmp_con_data.rkey);
                    remote_con_data.qp_num = ntohl(tmp_con_data.qp_num);
                    remote_con_data.lid = ntohs(tmp_con_data.lid);
                    memcpy(remote_con_data.gid, tmp_con_data.gid, 16);
                    res->remote_props = remote_con_data;""";
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            LabResources resources = session.resources();
            if (resources.qp() == null) {
                return Optional.of(LabPhrase.of("blocked.createQp"));
            }
            return resources.connected() ? Optional.empty() : Optional.of(LabPhrase.of("blocked.connectTcp"));
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            LabResources resources = session.resources();
            ConnectionData local = localData(session);
            ConnectionData remote = resources.remoteData().orElse(null);
            if (!receiveOnly) {
                session.link().send(local);
            }
            if (!sendOnly) {
                remote = session.link().receive();
            }
            resources.exchanged(local, remote);
            if (!receiveOnly) {
                session.print(String.format("Local address = 0x%x", local.addr()));
                session.print(String.format("Local rkey = 0x%x", local.rkey()));
                session.print(String.format("Local QP number = 0x%x", local.qpn()));
                session.print(String.format("Local PSN = 0x%06x", local.psn()));
                session.print("Local GID = " + local.gid());
            }
            if (sendOnly) {
                return StepResult.ok(LabPhrase.of("result.sentQpn", hex(local.qpn())));
            }
            session.print(String.format("Remote address = 0x%x", remote.addr()));
            session.print(String.format("Remote rkey = 0x%x", remote.rkey()));
            session.print(String.format("Remote QP number = 0x%x", remote.qpn()));
            session.print(String.format("Remote PSN = 0x%06x", remote.psn()));
            session.print(String.format("Remote LID = 0x%x", remote.lid()));
            session.print("Remote GID = " + remote.gid());
            return StepResult.ok(LabPhrase.of("result.peer", hex(remote.qpn()), hex(remote.rkey()),
                    String.format("0x%x", remote.addr()), remote.gid()));
        }

        private static String hex(int value) {
            return "0x" + Integer.toHexString(value);
        }

        static ConnectionData localData(LabSession session) {
            LabResources resources = session.resources();
            GidEntry gid = resources.gidEntry().orElse(null);
            Mtu mtu = resources.portAttributes() == null ? Mtu.MTU_1024 : resources.portAttributes().activeMtu();
            int lid = resources.portAttributes() == null ? 0 : resources.portAttributes().lid();
            return new ConnectionData(resources.qp().type(), resources.qp().qpNum(), resources.sendPsn(), lid,
                    gid == null ? Gid.ZERO : gid.gid(), resources.mr() == null ? 0 : resources.mr().address(),
                    resources.mr() == null ? 0 : resources.mr().rkey(), resources.mr() == null ? 0 : resources.mr()
                            .length(),
                    mtu);
        }
    }

    /** {@code sock_sync_data} of one byte: both peers reach the same point. */
    static final class Sync extends Step {

        Sync(String name, String purpose) {
            super("sync-" + name.toLowerCase(java.util.Locale.ROOT), "Sync '" + name + "' (" + purpose + ")",
                    Parameter.text("name", "sync name (the seed sends this byte)", name));
        }

        @Override
        public String cCode(LabSession session) {
            return "rc = sock_sync_data(res->sock, 1, \"%s\", &temp_char);".formatted(parameter("name").value());
        }

        @Override
        public Optional<Phrase> blockedBy(LabSession session) {
            return session.resources().connected() ? Optional.empty() : Optional.of(LabPhrase.of("blocked.connectTcp"));
        }

        @Override
        protected StepResult execute(LabSession session) throws Exception {
            String name = parameter("name").value();
            session.link().sync(name);
            session.emit(new LabEvent.Sync(name));
            return StepResult.ok(LabPhrase.of("result.synced", name));
        }
    }
}
