package org.rdmalab.ibverbs;

import static org.rdmalab.ibverbs.StructField.*;

import java.time.Duration;
import jnr.ffi.Pointer;
import jnr.ffi.byref.PointerByReference;
import org.rdmalab.verbs.CompletionChannel;
import org.rdmalab.verbs.CompletionQueue;
import org.rdmalab.verbs.Errno;
import org.rdmalab.verbs.VerbsException;
import org.rdmalab.verbs.spi.ResourceNode;

/**
 * {@code struct ibv_comp_channel *}. {@link #getEvent} waits with {@code poll(2)} on the channel's
 * fd for at most the timeout, then calls {@code ibv_get_cq_event}, which no longer blocks.
 */
final class NativeCompletionChannel extends ResourceNode implements CompletionChannel {

    private static final short POLLIN = 0x1;

    private final NativeContext context;
    private final Pointer channel;

    NativeCompletionChannel(NativeContext context, Pointer channel) {
        super(context, Kind.COMPLETION_CHANNEL);
        this.context = context;
        this.channel = channel;
    }

    NativeContext context() {
        return context;
    }

    Pointer pointer() {
        return channel;
    }

    /** {@code poll(2)} on {@code channel->fd}, then {@code ibv_get_cq_event}; ETIMEDOUT when nothing came. */
    @Override
    public CompletionQueue getEvent(Duration timeout) throws VerbsException {
        ensureOpen();
        Native library = context.library();
        long millis = Math.max(0, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (NativeMemory memory = NativeMemory.allocate(library.runtime, StructSize.POLLFD.size)) {
            Pointer pollfd = memory.pointer();
            POLLFD_FD.put(pollfd, COMP_CHANNEL_FD.getInt(channel));
            POLLFD_EVENTS.put(pollfd, POLLIN);
            Libc libc = Native.libc();
            int ready = libc.poll(pollfd, 1, (int) millis);
            int saved = jnr.ffi.Runtime.getRuntime(libc).getLastError();
            if (ready < 0) {
                throw NativeContext.failure("ibv_get_cq_event", -1, saved, "poll(2) on the channel's fd failed");
            }
            if (ready == 0) {
                throw new VerbsException("ibv_get_cq_event", Errno.ETIMEDOUT, "no completion event within "
                        + millis + " ms");
            }
        }
        PointerByReference cq = new PointerByReference();
        PointerByReference cqContext = new PointerByReference();
        int rc = library.verbs.ibv_get_cq_event(channel, cq, cqContext);
        int saved = library.lastError();
        if (rc != 0) {
            throw NativeContext.failure("ibv_get_cq_event", rc, saved, "could not read the completion event");
        }
        NativeCompletionQueue queue = cq.getValue() == null ? null : context.queueAt(cq.getValue().address());
        if (queue == null) {
            throw new VerbsException("ibv_get_cq_event", Errno.EPROTO, "the event names a CQ this context did not create");
        }
        queue.eventDelivered();
        return queue;
    }

    @Override
    protected void destroy() {
        Native library = context.library();
        int rc = library.verbs.ibv_destroy_comp_channel(channel);
        int saved = library.lastError();
        if (rc != 0) {
            NativeContext.logDestroyFailure("ibv_destroy_comp_channel", rc, saved);
        }
    }
}
