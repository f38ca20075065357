package org.rdmalab.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.rdmalab.text.Phrase;

/**
 * The sentences the window quotes from the engines (the lab's, {@code doctor}'s): one English text
 * per sentence, the same sentences in Chinese, none missing or unused.
 */
class PhraseTest {

    private static final Locale CHINESE = Locale.SIMPLIFIED_CHINESE;

    /** A bundle, how its keys look in the code, and where the code that says them is. */
    private record Words(String bundle, Pattern key, Path sources) {
    }

    private static final List<Words> ALL = List.of(
            new Words(LabPhrase.BUNDLE, Pattern.compile("\"((?:blocked|result|post|diag|fix)\\.[A-Za-z]+)\""),
                    Path.of("src/main/java")),
            new Words("org.rdmalab.doctor.local", Pattern.compile("\"(local\\.[A-Za-z0-9.]+)\""),
                    Path.of("src/main/java/org/rdmalab/doctor")),
            new Words("org.rdmalab.doctor.peer", Pattern.compile("\"((?:peer|lab)\\.[A-Za-z0-9.]+)\""),
                    Path.of("src/main/java/org/rdmalab/doctor")));

    @Test
    void bothLanguagesHaveTheSameSentencesWithTheSameArguments() {
        for (Words words : ALL) {
            ResourceBundle english = Phrase.bundle(words.bundle(), Locale.ROOT);
            ResourceBundle chinese = Phrase.bundle(words.bundle(), CHINESE);
            Set<String> keys = new TreeSet<>(english.keySet());
            assertEquals(keys, new TreeSet<>(chinese.keySet()), words.bundle());
            for (String key : keys) {
                String base = english.getString(key);
                String translated = chinese.getString(key);
                assertTrue(!translated.equals(base), key + " has no Chinese text of its own");
                assertEquals(count(base), count(translated), key + ": the same number of %s");
                assertTrue(translated.codePoints()
                                .anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN),
                        key + " is not Chinese: " + translated);
                assertEquals(base.strip(), base, key + ": a pattern has no space at either end");
            }
        }
    }

    @Test
    void everyKeyTheCodeSaysIsInItsBundleAndEveryKeyInABundleIsSaid() throws IOException {
        for (Words words : ALL) {
            Set<String> said = new TreeSet<>();
            try (Stream<Path> files = Files.walk(words.sources())) {
                for (Path file : files.filter(path -> path.toString().endsWith(".java")).toList()) {
                    Matcher key = words.key().matcher(Files.readString(file));
                    while (key.find()) {
                        said.add(key.group(1));
                    }
                }
            }
            assertEquals(new TreeSet<>(Phrase.bundle(words.bundle(), Locale.ROOT).keySet()), said, words.bundle());
        }
    }

    @Test
    void englishIsTheCommandLinesTextAndNestedPhrasesSpeakTheSameLanguage() {
        Phrase port = LabPhrase.of("result.port", 1, "ACTIVE", LabPhrase.of("result.noGidRoce"));
        assertEquals("port 1 ACTIVE, no GID (gid_idx -1: no GRH; RoCE needs one, RTR will fail)", port.english());
        assertEquals(port.english(), port.toString());
        assertEquals("端口 1 ACTIVE，没有 GID（gid_idx -1：不带 GRH；RoCE 需要 GRH，RTR 会失败）", port.in(CHINESE));
        Phrase blocked = LabPhrase.of("result.cannotRunYet", LabPhrase.of("blocked.createQp"));
        assertEquals("cannot run yet: create the QP first", blocked.english());
        assertEquals("还不能运行：请先创建 QP", blocked.in(CHINESE));
        assertEquals("port 1 ACTIVE, GID[3] x", LabPhrase.of("result.port", 1, "ACTIVE", Phrase.literal("GID[3] x"))
                .in(Locale.FRENCH), "a language without a bundle reads English");
    }

    @Test
    void englishStaysTheBaseOnAChineseDesktop() {
        Locale before = Locale.getDefault();
        try {
            Locale.setDefault(CHINESE);
            assertEquals("open the device first", LabPhrase.of("blocked.openDevice").english());
        } finally {
            Locale.setDefault(before);
        }
    }

    @Test
    void aLiteralReadsTheSameInEveryLanguage() {
        Phrase literal = Phrase.literal("EINVAL: missing: DEST_QPN");
        assertTrue(literal.isLiteral());
        assertEquals("EINVAL: missing: DEST_QPN", literal.in(CHINESE));
        StepResult failed = StepResult.failed("ibv_modify_qp failed", "detail");
        assertEquals("ibv_modify_qp failed", failed.said().in(CHINESE));
        assertEquals(java.util.List.of("detail"), failed.details(CHINESE));
    }

    @Test
    void aMissingMessageReadsNullAsAConcatenationDidInsteadOfFailingTheStep() {
        assertEquals("control plane: null", LabPhrase.of("result.controlPlane", (Object) null).english());
        assertEquals("null", StepResult.failed((String) null).summary());
    }

    private static long count(String pattern) {
        return Pattern.compile("%s").matcher(pattern).results().count();
    }
}
