package org.rdmalab.verbs;

/**
 * Implemented by contexts whose device injects faults on its outgoing packets (the software
 * device), so a running lab can change them: random faults with their rates and one seed
 * ({@link FaultSettings}), and one-shot faults for the next matching packet ({@link OneShotFault}).
 * A context starts with the faults its device was configured with (the command line's
 * {@code --fault}). Every fault that fires is reported to the context's packet listeners
 * ({@link PacketObservable}) as {@link PacketEvent#faults()} on the event of the packet it hit.
 *
 * <p>Thread-safe and never blocking: a change reaches the device's transport thread at its next
 * turn and applies to the packets sent from then on. A closed context ignores changes.
 */
public interface FaultControl {

    /** The random faults in force. */
    FaultSettings faults();

    /**
     * Replaces the random faults. Settings other than those in force start the draws over from
     * their seed, so the same settings applied at the same point of a run repeat it; the same
     * settings again change nothing. {@link FaultSettings#NONE} turns them off.
     */
    void setFaults(FaultSettings settings);

    /**
     * Arms a one-shot fault for the next matching packet this device sends. Armed on several
     * devices, the same {@code fault} fires once, on whichever sends a matching packet first;
     * arming it again on the same device changes nothing.
     */
    void arm(OneShotFault fault);
}
