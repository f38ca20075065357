/**
 * The live QP state diagram: {@link org.rdmalab.app.diagram.QpStateDiagram} (the control, its
 * properties and commands), {@link org.rdmalab.app.diagram.QpStateDiagramSkin} (boxes and arrows)
 * and {@code DiagramLayout} (where states sit and how arrows run, derived from
 * {@link org.rdmalab.verbs.QpTransitions} by one rule). Style in {@code styles/controls.css},
 * colours from the tokens of {@code styles/rdma-lab.css}.
 *
 * <p>Threads: everything here is used on the JavaFX thread only. The control holds no RDMA logic;
 * a view model sets its state and asks it to animate or refuse a transition.
 */
package org.rdmalab.app.diagram;
