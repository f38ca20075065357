package org.rdmalab.verbs;

/**
 * {@code struct ibv_qp_attr}: a mutable bag of QP attributes; which ones a modify uses is said by
 * a separate {@link QpAttrMask} mask, exactly as in C.
 *
 * <p>Setters return {@code this} so a transition reads like the C code that fills the struct.
 */
public final class QpAttributes {

    private QpState state = QpState.RESET;
    private QpState currentState = QpState.RESET;
    private Mtu pathMtu = Mtu.MTU_1024;
    private MigState pathMigState = MigState.MIGRATED;
    private int qkey;
    private int rqPsn;
    private int sqPsn;
    private int destQpNum;
    private int accessFlags;
    private QpCapabilities capabilities = new QpCapabilities(0, 0, 0, 0, 0);
    private AddressVector addressVector;
    private int pkeyIndex;
    private boolean sqdAsyncNotify;
    private int maxRdAtomic;
    private int maxDestRdAtomic;
    private int minRnrTimer;
    private int portNum;
    private int timeout;
    private int retryCount;
    private int rnrRetry;

    /** A copy of this bag. */
    public QpAttributes copy() {
        QpAttributes copy = new QpAttributes();
        copy.state = state;
        copy.currentState = currentState;
        copy.pathMtu = pathMtu;
        copy.pathMigState = pathMigState;
        copy.qkey = qkey;
        copy.rqPsn = rqPsn;
        copy.sqPsn = sqPsn;
        copy.destQpNum = destQpNum;
        copy.accessFlags = accessFlags;
        copy.capabilities = capabilities;
        copy.addressVector = addressVector;
        copy.pkeyIndex = pkeyIndex;
        copy.sqdAsyncNotify = sqdAsyncNotify;
        copy.maxRdAtomic = maxRdAtomic;
        copy.maxDestRdAtomic = maxDestRdAtomic;
        copy.minRnrTimer = minRnrTimer;
        copy.portNum = portNum;
        copy.timeout = timeout;
        copy.retryCount = retryCount;
        copy.rnrRetry = rnrRetry;
        return copy;
    }

    public QpState state() { return state; }
    public QpAttributes state(QpState value) { state = value; return this; }
    public QpState currentState() { return currentState; }
    public QpAttributes currentState(QpState value) { currentState = value; return this; }
    public Mtu pathMtu() { return pathMtu; }
    public QpAttributes pathMtu(Mtu value) { pathMtu = value; return this; }
    public MigState pathMigState() { return pathMigState; }
    public QpAttributes pathMigState(MigState value) { pathMigState = value; return this; }
    public int qkey() { return qkey; }
    public QpAttributes qkey(int value) { qkey = value; return this; }
    public int rqPsn() { return rqPsn; }
    public QpAttributes rqPsn(int value) { rqPsn = value; return this; }
    public int sqPsn() { return sqPsn; }
    public QpAttributes sqPsn(int value) { sqPsn = value; return this; }
    public int destQpNum() { return destQpNum; }
    public QpAttributes destQpNum(int value) { destQpNum = value; return this; }
    public int accessFlags() { return accessFlags; }
    public QpAttributes accessFlags(int value) { accessFlags = value; return this; }
    public QpCapabilities capabilities() { return capabilities; }
    public QpAttributes capabilities(QpCapabilities value) { capabilities = value; return this; }
    /** The primary path ({@code ah_attr}); {@code null} until set. */
    public AddressVector addressVector() { return addressVector; }
    public QpAttributes addressVector(AddressVector value) { addressVector = value; return this; }
    public int pkeyIndex() { return pkeyIndex; }
    public QpAttributes pkeyIndex(int value) { pkeyIndex = value; return this; }
    public boolean sqdAsyncNotify() { return sqdAsyncNotify; }
    public QpAttributes sqdAsyncNotify(boolean value) { sqdAsyncNotify = value; return this; }
    public int maxRdAtomic() { return maxRdAtomic; }
    public QpAttributes maxRdAtomic(int value) { maxRdAtomic = value; return this; }
    public int maxDestRdAtomic() { return maxDestRdAtomic; }
    public QpAttributes maxDestRdAtomic(int value) { maxDestRdAtomic = value; return this; }
    /** The RNR timer code (0..31) sent in RNR NAKs; see {@link RnrTimer}. */
    public int minRnrTimer() { return minRnrTimer; }
    public QpAttributes minRnrTimer(int value) { minRnrTimer = value; return this; }
    public int portNum() { return portNum; }
    public QpAttributes portNum(int value) { portNum = value; return this; }
    /** Local ACK timeout exponent: 4.096 µs × 2^timeout, 0 = no timer. */
    public int timeout() { return timeout; }
    public QpAttributes timeout(int value) { timeout = value; return this; }
    public int retryCount() { return retryCount; }
    public QpAttributes retryCount(int value) { retryCount = value; return this; }
    /** RNR retries; 7 means infinite. */
    public int rnrRetry() { return rnrRetry; }
    public QpAttributes rnrRetry(int value) { rnrRetry = value; return this; }
}
