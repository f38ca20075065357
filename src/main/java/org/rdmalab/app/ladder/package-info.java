/**
 * The Ladder tab, the first view of the Wire tab: the packets between two QPs drawn as a ladder
 * diagram. {@link org.rdmalab.app.ladder.LadderViewModel} feeds a {@link org.rdmalab.ladder.Ladder}
 * from the lab's live packets (batched, held a moment by {@link org.rdmalab.app.ladder.HeldPackets}
 * so that a packet's send and its arrival meet in order, and handed to the ladder within a time
 * budget per frame) or from a capture opened from a file, writes the session's packets to a pcap file
 * (Save capture…), and holds the selected packets and the one last clicked.
 * {@link org.rdmalab.app.ladder.LadderChart} (a Control, its skin a Canvas redrawn for the visible
 * window only) draws it, laid out by {@link org.rdmalab.app.ladder.LadderLayout} (time runs down,
 * long idle stretches compressed, zoom in time) with the words of
 * {@link org.rdmalab.app.ladder.ArrowLabels}; {@link org.rdmalab.app.ladder.LadderView} is the
 * controller of {@code fxml/ladder/LadderView.fxml}. Above the chart,
 * {@link org.rdmalab.app.ladder.WorkRequestsViewModel} lists the lab's posted work requests
 * (a {@link org.rdmalab.ladder.WorkRequestTracker} ties them to their packets and completions) and
 * holds the one selection that ties a request, its packets and its completion in the lab's
 * completions table; {@link org.rdmalab.app.ladder.WorkRequestsView} is the controller of
 * {@code fxml/ladder/WorkRequestsView.fxml}.
 *
 * <p>Threads: everything here runs on the JavaFX thread, except reading a capture and writing the
 * session's capture, which run on a background executor and come back through the UI executor.
 */
package org.rdmalab.app.ladder;
