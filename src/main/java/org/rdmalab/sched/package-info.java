/**
 * How this process's threads share the processor: {@link org.rdmalab.sched.ThreadNice} reads and
 * lowers one thread's nice value on Linux (through libc's {@code setpriority}, bound with jnr-ffi,
 * and {@code /proc}), and {@link org.rdmalab.sched.BackgroundPriority} is the setting the window's
 * launchers turn on so that soft0's device loops, the lab's workers and the capture writer yield
 * the processor to the JavaFX thread. Elsewhere (macOS, Windows, a kernel that refuses) nothing
 * changes and nothing fails. The package imports nothing of the project, so every layer may use
 * it.
 *
 * <p>Threads: every method may be called from any thread; a thread's priority is lowered by the
 * thread itself as it starts, or (the JIT's compiler threads) by the thread that asks.
 */
package org.rdmalab.sched;
