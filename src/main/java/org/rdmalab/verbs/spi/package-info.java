/**
 * How backends plug in: {@link org.rdmalab.verbs.spi.VerbsProvider} found through
 * {@code META-INF/services}, {@link org.rdmalab.verbs.spi.Backends} to list and find devices of
 * every backend, {@link org.rdmalab.verbs.spi.DeviceOptions} for software devices, and
 * {@link org.rdmalab.verbs.spi.ResourceNode}, the shared lifetime rule (children close first, in
 * dependency order; close is idempotent and thread-safe).
 */
package org.rdmalab.verbs.spi;
