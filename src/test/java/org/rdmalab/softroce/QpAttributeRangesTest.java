package org.rdmalab.softroce;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.function.BiConsumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.QpAttrMask;
import org.rdmalab.verbs.QpAttributes;
import org.rdmalab.verbs.VerbsException;

/**
 * ibv_modify_qp's value checks on soft0, as rxe's {@code rxe_qp_chk_attr} makes them: for each
 * attribute with a range, its lowest and highest values pass, one beyond either end is EINVAL
 * with a sentence naming the attribute, and an out-of-range value whose mask bit is not set is
 * not looked at.
 */
class QpAttributeRangesTest {

    private static SoftRoceProfile profile() throws Exception {
        return new SoftRoceProfile((Inet4Address) InetAddress.getByName("127.0.0.1"), 4791, 1500);
    }

    static Stream<Arguments> ranges() {
        return Stream.of(
                Arguments.of("timeout", QpAttrMask.TIMEOUT, 0, 31, (BiConsumer<QpAttributes, Integer>) QpAttributes::timeout),
                Arguments.of("retry_cnt", QpAttrMask.RETRY_CNT, 0, 7, (BiConsumer<QpAttributes, Integer>) QpAttributes::retryCount),
                Arguments.of("rnr_retry", QpAttrMask.RNR_RETRY, 0, 7, (BiConsumer<QpAttributes, Integer>) QpAttributes::rnrRetry),
                Arguments.of("min_rnr_timer", QpAttrMask.MIN_RNR_TIMER, 0, 31,
                        (BiConsumer<QpAttributes, Integer>) QpAttributes::minRnrTimer),
                Arguments.of("max_rd_atomic", QpAttrMask.MAX_QP_RD_ATOMIC, 0, SoftRoceProfile.MAX_RD_ATOMIC,
                        (BiConsumer<QpAttributes, Integer>) QpAttributes::maxRdAtomic),
                Arguments.of("max_dest_rd_atomic", QpAttrMask.MAX_DEST_RD_ATOMIC, 0, SoftRoceProfile.MAX_RD_ATOMIC,
                        (BiConsumer<QpAttributes, Integer>) QpAttributes::maxDestRdAtomic),
                Arguments.of("dest_qp_num", QpAttrMask.DEST_QPN, 0, 0xFFFFFF,
                        (BiConsumer<QpAttributes, Integer>) QpAttributes::destQpNum),
                Arguments.of("rq_psn", QpAttrMask.RQ_PSN, 0, 0xFFFFFF, (BiConsumer<QpAttributes, Integer>) QpAttributes::rqPsn),
                Arguments.of("sq_psn", QpAttrMask.SQ_PSN, 0, 0xFFFFFF, (BiConsumer<QpAttributes, Integer>) QpAttributes::sqPsn),
                Arguments.of("pkey_index", QpAttrMask.PKEY_INDEX, 0, 0, (BiConsumer<QpAttributes, Integer>) QpAttributes::pkeyIndex),
                Arguments.of("port_num", QpAttrMask.PORT, 1, 1, (BiConsumer<QpAttributes, Integer>) QpAttributes::portNum));
    }

    @ParameterizedTest(name = "{0} in {2}..{3}")
    @MethodSource("ranges")
    void eachEndPassesOneBeyondIsEinvalAndAnUnmaskedValueIsNotLookedAt(String name, QpAttrMask bit, int low, int high,
                                                                        BiConsumer<QpAttributes, Integer> set)
            throws Exception {
        SoftRoceProfile profile = profile();
        for (int value : new int[] {low, high}) {
            QpAttributes attr = new QpAttributes();
            set.accept(attr, value);
            assertDoesNotThrow(() -> QpAttributeChecks.checkValues(profile, attr, bit.value()), name + " " + value);
        }
        for (int value : new int[] {low - 1, high + 1}) {
            QpAttributes attr = new QpAttributes();
            set.accept(attr, value);
            VerbsException e = assertThrows(VerbsException.class,
                    () -> QpAttributeChecks.checkValues(profile, attr, bit.value()), name + " " + value);
            assertEquals(Errno.EINVAL, e.errno(), name + " " + value);
            assertTrue(e.getMessage().contains(name + " "), e.getMessage());
            // Without its mask bit the same value is not the call's business.
            assertDoesNotThrow(() -> QpAttributeChecks.checkValues(profile, attr, 0), name + " " + value + " unmasked");
        }
    }
}
