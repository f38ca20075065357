/**
 * The Faults tab: {@link org.rdmalab.app.faults.FaultsView} / {@link org.rdmalab.app.faults.FaultsViewModel}
 * turn the software devices' faults on and off while the lab runs (drop, duplicate, reorder and
 * corrupt rates, a delay, one seed; one-shot "drop the next packet", "drop the next ACK" and
 * "corrupt the next packet" for one way), through the verbs API's
 * {@link org.rdmalab.verbs.FaultControl}, and log every fault that fired with the packet it hit
 * ({@link org.rdmalab.verbs.PacketEvent#faults()}). Its FXML is {@code fxml/faults/FaultsView.fxml}.
 *
 * <p>Threads: controller and view model on the JavaFX thread; the devices take the faults on
 * their own transport threads without the window waiting; each side's worker hands a device the
 * faults as the device opens.
 */
package org.rdmalab.app.faults;
