/**
 * Text the engines write, on the ground floor: a {@link org.rdmalab.text.Phrase} is a key of an
 * engine's bundle and its arguments, said in English on the command line and in the window's
 * language in the window; {@link org.rdmalab.text.Json} is the one JSON writer (the commands'
 * {@code --json}, the Bench view's Save). The bundles themselves live beside the engines that speak
 * them ({@code lab}, {@code doctor}); this package knows none of them and imports nothing of the
 * project, so every layer may use it.
 *
 * <p>Phrases are immutable values and the writer keeps no state: any thread may use them.
 */
package org.rdmalab.text;
