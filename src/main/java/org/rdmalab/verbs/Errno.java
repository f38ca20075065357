package org.rdmalab.verbs;

/** Linux errno values and their {@code strerror} texts, as verbs calls return them. */
public enum Errno {
    EPERM(1, "Operation not permitted"),
    ENOENT(2, "No such file or directory"),
    ESRCH(3, "No such process"),
    EINTR(4, "Interrupted system call"),
    EIO(5, "Input/output error"),
    ENXIO(6, "No such device or address"),
    E2BIG(7, "Argument list too long"),
    EBADF(9, "Bad file descriptor"),
    EAGAIN(11, "Resource temporarily unavailable"),
    ENOMEM(12, "Cannot allocate memory"),
    EACCES(13, "Permission denied"),
    EFAULT(14, "Bad address"),
    EBUSY(16, "Device or resource busy"),
    EEXIST(17, "File exists"),
    ENODEV(19, "No such device"),
    EINVAL(22, "Invalid argument"),
    EMFILE(24, "Too many open files"),
    ENOSPC(28, "No space left on device"),
    EPIPE(32, "Broken pipe"),
    ERANGE(34, "Numerical result out of range"),
    ENOSYS(38, "Function not implemented"),
    ENODATA(61, "No data available"),
    EPROTO(71, "Protocol error"),
    EOVERFLOW(75, "Value too large for defined data type"),
    EMSGSIZE(90, "Message too long"),
    EPROTONOSUPPORT(93, "Protocol not supported"),
    EOPNOTSUPP(95, "Operation not supported"),
    EADDRINUSE(98, "Address already in use"),
    EADDRNOTAVAIL(99, "Cannot assign requested address"),
    ENETDOWN(100, "Network is down"),
    ENETUNREACH(101, "Network is unreachable"),
    ECONNABORTED(103, "Software caused connection abort"),
    ECONNRESET(104, "Connection reset by peer"),
    ENOBUFS(105, "No buffer space available"),
    ENOTCONN(107, "Transport endpoint is not connected"),
    ETIMEDOUT(110, "Connection timed out"),
    ECONNREFUSED(111, "Connection refused"),
    EHOSTUNREACH(113, "No route to host"),
    ECANCELED(125, "Operation canceled"),
    /** A value this table does not list; {@link VerbsException#errnoValue()} keeps the number. */
    UNKNOWN(-1, "Unknown error");

    private final int value;
    private final String text;

    Errno(int value, String text) {
        this.value = value;
        this.text = text;
    }

    /** The Linux number. */
    public int value() {
        return value;
    }

    /** The {@code strerror} text. */
    public String text() {
        return text;
    }

    /** The errno with Linux number {@code value}, or {@link #UNKNOWN}. */
    public static Errno of(int value) {
        for (Errno errno : values()) {
            if (errno.value == value) {
                return errno;
            }
        }
        return UNKNOWN;
    }
}
