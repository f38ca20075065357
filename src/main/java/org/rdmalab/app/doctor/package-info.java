/**
 * The Doctor tab: {@link org.rdmalab.app.doctor.DoctorViewModel} runs {@code doctor}'s local checks
 * and offers the fixes the lab can apply itself (the recommended GID, the RTR step's path MTU); its
 * peer probe runs {@code doctor}'s peer mode against a peer in {@code doctor --serve} and shows the
 * report as the command line prints it, in the window's language.
 * {@link org.rdmalab.app.doctor.DoctorView} (its FXML in {@code fxml/doctor/}) shows it.
 *
 * <p>Threads: the view model and controller on the JavaFX thread; the checks and the probe run on
 * the background executor, every wait with a timeout, and their report comes back on the UI
 * executor.
 */
package org.rdmalab.app.doctor;
