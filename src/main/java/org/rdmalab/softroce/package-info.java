/**
 * The software RoCE v2 device {@code soft0}: a pure-Java RDMA device modelled on Linux rxe, found
 * through {@link org.rdmalab.softroce.SoftRoceProvider}. {@link org.rdmalab.softroce.SoftRoceProfile}
 * holds what it reports about itself (rxe's attributes and a GID table derived from its IPv4
 * address). Never imported by the native backend, and never imports it.
 */
package org.rdmalab.softroce;
