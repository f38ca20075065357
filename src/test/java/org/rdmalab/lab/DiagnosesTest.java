package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmalab.control.ControlException;
import org.rdmalab.text.Phrase;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.Backends;
import org.rdmalab.verbs.spi.DeviceOptions;

/**
 * Which parameter a failure is blamed on, for each failure the lab can explain and for those it
 * cannot: every refusal of the connect step on each side, errors that are not EINVAL, a verb that
 * is not the step's, and the one-line form with and without an errno or a parameter.
 */
class DiagnosesTest {

    private final List<LabSession> sessions = new ArrayList<>();

    @AfterEach
    void close() {
        sessions.forEach(LabSession::close);
    }

    private LabSession session(Role role, Step... steps) {
        LabSession session = new LabSession(role, Backends.installed(), DeviceOptions.defaults(),
                PeerLinks.memoryPair(Duration.ofSeconds(1))[role == Role.SERVER ? 0 : 1], List.of(steps));
        sessions.add(session);
        return session;
    }

    private Optional<Diagnosis> connect(Role role, ControlException.Reason reason) {
        ConnectSteps.Connect step = new ConnectSteps.Connect();
        return Diagnoses.of(session(role, step), step, new ControlException(reason, "what the socket said"));
    }

    private static String blamed(Optional<Diagnosis> diagnosis) {
        Diagnosis d = diagnosis.orElseThrow();
        return d.stepId() + "." + d.parameter() + " " + d.errno() + " " + d.explanation();
    }

    @Test
    void eachConnectRefusalHasItsErrnoAndBlamesTheAddressOrThePort() {
        assertEquals("connect.server_ip ECONNREFUSED what the socket said",
                blamed(connect(Role.CLIENT, ControlException.Reason.REFUSED)));
        assertEquals("connect.server_ip ETIMEDOUT what the socket said",
                blamed(connect(Role.CLIENT, ControlException.Reason.TIMEOUT)));
        assertEquals("connect.server_ip EADDRNOTAVAIL what the socket said",
                blamed(connect(Role.CLIENT, ControlException.Reason.BAD_ADDRESS)));
        // A port in use is the port, on either side; a server has no server IP to blame.
        assertEquals("connect.tcp_port EADDRINUSE what the socket said",
                blamed(connect(Role.CLIENT, ControlException.Reason.PORT_IN_USE)));
        assertEquals("connect.tcp_port EADDRINUSE what the socket said",
                blamed(connect(Role.SERVER, ControlException.Reason.PORT_IN_USE)));
        assertEquals("connect.tcp_port ETIMEDOUT what the socket said",
                blamed(connect(Role.SERVER, ControlException.Reason.TIMEOUT)));
        assertTrue(connect(Role.CLIENT, ControlException.Reason.TIMEOUT).orElseThrow().fix().isEmpty());
    }

    @Test
    void aConnectFailureWithoutAnErrnoOrOnAnotherStepIsNotDiagnosed() {
        assertEquals(Optional.empty(), connect(Role.CLIENT, ControlException.Reason.PROTOCOL));
        assertEquals(Optional.empty(), connect(Role.CLIENT, ControlException.Reason.PEER_CLOSED));
        ResourceSteps.AllocatePd pd = new ResourceSteps.AllocatePd();
        assertEquals(Optional.empty(), Diagnoses.of(session(Role.CLIENT, pd), pd,
                new ControlException(ControlException.Reason.REFUSED, "refused")));
    }

    @Test
    void aVerbsFailureOnAStepWithoutARuleOrBeforeTheQpExistsIsNotDiagnosed() {
        ResourceSteps.AllocatePd pd = new ResourceSteps.AllocatePd();
        assertEquals(Optional.empty(), Diagnoses.of(session(Role.CLIENT, pd), pd,
                new VerbsException("ibv_alloc_pd", Errno.ENOMEM, "no memory")));
        ModifySteps.ToRts rts = new ModifySteps.ToRts(0x12, 6, 0, "0");
        assertEquals(Optional.empty(), Diagnoses.of(session(Role.CLIENT, rts), rts,
                new VerbsException("ibv_modify_qp", Errno.EINVAL, "no QP yet")));
    }

    @Test
    void theOneLineFormLeavesOutWhatTheDiagnosisHasNot() {
        Diagnosis whole = new Diagnosis("modify-rts", "", null, Phrase.literal("moved by hand"), Optional.empty());
        assertEquals("modify-rts: moved by hand", whole.toString());
        assertEquals(Optional.empty(), whole.errnoValue());
        Diagnosis withErrno = new Diagnosis("connect", "server_ip", Errno.ETIMEDOUT, Phrase.literal("no answer"),
                Optional.empty());
        assertEquals("connect.server_ip: ETIMEDOUT (" + Errno.ETIMEDOUT.text() + "): no answer", withErrno.toString());
        assertEquals(Optional.of(Errno.ETIMEDOUT), withErrno.errnoValue());
    }

    @Test
    void aLineThatHasSaidTheSentenceGetsTheDiagnosisWithoutIt() {
        Diagnosis withErrno = new Diagnosis("connect", "tcp_port", Errno.ETIMEDOUT, Phrase.literal("no client within 1 s"),
                Optional.of(new Diagnosis.Fix("connect", "timeout", "30", Phrase.literal("wait longer"))));
        assertEquals("connect.tcp_port: ETIMEDOUT (" + Errno.ETIMEDOUT.text() + ") — fix: timeout = 30 (wait longer)",
                withErrno.lineAfter("no client within 1 s"));
        assertEquals("connect.tcp_port: ETIMEDOUT (" + Errno.ETIMEDOUT.text() + ") — fix: timeout = 30 (wait longer)",
                withErrno.lineAfter("control plane: no client within 1 s; start the client"));
        // Any other text before it, a part of the sentence included, leaves the sentence in.
        assertEquals(withErrno.toString(), withErrno.lineAfter("no client within 1"));
        assertEquals("connect.tcp_port: ETIMEDOUT (" + Errno.ETIMEDOUT.text() + "): no client within 1 s — fix: timeout = 30"
                + " (wait longer)", withErrno.lineAfter("ibv_modify_qp failed"));
        Diagnosis whole = new Diagnosis("modify-rts", "", null, Phrase.literal("moved by hand"), Optional.empty());
        assertEquals("modify-rts", whole.lineAfter("moved by hand"));
        assertEquals("modify-rts: moved by hand", whole.lineAfter(""));
    }
}
