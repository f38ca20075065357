/**
 * Translated text, on the ground floor: a {@link org.rdmalab.text.Phrase} is a key of an engine's
 * bundle and its arguments, said in English on the command line and in the window's language in
 * the window. The bundles themselves live beside the engines that speak them ({@code lab},
 * {@code doctor}); this package knows none of them and imports nothing of the project, so every
 * layer may use it.
 *
 * <p>Phrases are immutable values: any thread may build and say them.
 */
package org.rdmalab.text;
