package org.rdmalab.lab.exercise;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.ResourceBundle;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.rdmalab.text.Phrase;

/**
 * The built-in exercises' words: every sentence in English and Chinese with the same arguments and
 * the same verbs.h names, none missing and none unused; names unique; at least ten exercises.
 */
class ExerciseTextTest {

    private static final Pattern VERBS_NAME = Pattern.compile("IBV_[A-Z0-9_]+");

    private static void collect(Phrase phrase, Set<String> keys) {
        if (phrase.isLiteral()) {
            return;
        }
        keys.add(phrase.key());
        for (Object arg : phrase.args()) {
            if (arg instanceof Phrase nested) {
                collect(nested, keys);
            }
        }
    }

    @Test
    void everySentenceIsInBothLanguagesWithTheSameArgumentsAndVerbsNames() {
        ResourceBundle english = Phrase.bundle(ExercisePhrase.BUNDLE, Locale.ROOT);
        ResourceBundle chinese = Phrase.bundle(ExercisePhrase.BUNDLE, Locale.SIMPLIFIED_CHINESE);
        assertEquals(new TreeSet<>(english.keySet()), new TreeSet<>(chinese.keySet()));
        for (String key : english.keySet()) {
            String base = english.getString(key);
            String translated = chinese.getString(key);
            assertTrue(translated.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN),
                    key + " is not Chinese: " + translated);
            assertEquals(count(base, "%s"), count(translated, "%s"), key + ": the same number of %s");
            assertEquals(names(base), names(translated), key + ": verbs.h names stay as they are");
        }
    }

    @Test
    void everySentenceIsSaidByAnExerciseOrACheckAndNoneIsMissing() {
        Set<String> said = new TreeSet<>();
        for (Exercise exercise : Exercises.all()) {
            collect(exercise.title(), said);
            collect(exercise.teaches(), said);
            collect(exercise.goal(), said);
            exercise.hints().forEach(hint -> collect(hint, said));
            exercise.checks().forEach(check -> collect(check.said(), said));
        }
        // The check kinds only an instructor's file uses (docs/exercises.md's example has them).
        for (Check check : FILE_ONLY_CHECKS) {
            collect(check.said(), said);
        }
        assertEquals(new TreeSet<>(Phrase.bundle(ExercisePhrase.BUNDLE, Locale.ROOT).keySet()), said);
        for (Exercise exercise : Exercises.all()) {
            for (Locale locale : List.of(Locale.ROOT, Locale.SIMPLIFIED_CHINESE)) {
                exercise.checks().forEach(check -> assertFalse(check.said().in(locale).isBlank()));
            }
        }
    }

    /** One of each form of the checks no built-in exercise uses. */
    private static final List<Check> FILE_ONLY_CHECKS = List.of(
            Check.CounterRises.atLeast(org.rdmalab.lab.Role.SERVER, "send_rnr_err", 1),
            new Check.CounterRises(org.rdmalab.lab.Role.CLIENT, "rcvd_rnr_err", 1, 1),
            new Check.CounterRises(org.rdmalab.lab.Role.CLIENT, "sent_pkts", 2, 5),
            new Check.StepEnded(org.rdmalab.lab.Role.SERVER, "modify-rtr", true, null),
            new Check.StepEnded(org.rdmalab.lab.Role.SERVER, "modify-rtr", false, null),
            new Check.StepEnded(org.rdmalab.lab.Role.CLIENT, "modify-rtr", false, org.rdmalab.verbs.Errno.EINVAL));

    @Test
    void theBuiltInExercisesReadFromFilesSayEveryTextInBothLanguagesWithTheSameVerbsNames() {
        List<String> fromFiles = List.of("path-mtu", "drop-ack", "recv-too-small");
        for (String name : fromFiles) {
            Exercise exercise = Exercises.named(name).orElseThrow();
            List<Phrase> texts = new java.util.ArrayList<>(List.of(exercise.title(), exercise.teaches(), exercise.goal()));
            texts.addAll(exercise.hints());
            assertTrue(exercise.hints().size() >= 2, name);
            for (Phrase text : texts) {
                assertTrue(text.isLiteral(), name + ": " + text);
                String english = text.english();
                String chinese = text.in(Locale.SIMPLIFIED_CHINESE);
                assertFalse(english.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN),
                        name + ": " + english);
                assertTrue(chinese.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN),
                        name + " is not Chinese: " + chinese);
                assertEquals(names(english), names(chinese), name + ": verbs.h names stay as they are");
            }
        }
        assertEquals("A lost ACK", Exercises.named("drop-ack").orElseThrow().title().english());
        assertEquals("丢失的 ACK", Exercises.named("drop-ack").orElseThrow().title().in(Locale.SIMPLIFIED_CHINESE));
    }

    @Test
    void theNewCheckKindsSayWhatTheyCheck() {
        assertEquals("the server's port counter send_rnr_err rises by 1 or more", FILE_ONLY_CHECKS.get(0).said().english());
        assertEquals("the client's port counter rcvd_rnr_err rises by exactly 1", FILE_ONLY_CHECKS.get(1).said().english());
        assertEquals("the client's port counter sent_pkts rises by 2 to 5", FILE_ONLY_CHECKS.get(2).said().english());
        assertEquals("the server's step modify-rtr succeeds", FILE_ONLY_CHECKS.get(3).said().english());
        assertEquals("the client's step modify-rtr fails with EINVAL", FILE_ONLY_CHECKS.get(5).said().english());
        assertEquals("客户端的步骤 modify-rtr 以 EINVAL 失败", FILE_ONLY_CHECKS.get(5).said().in(Locale.SIMPLIFIED_CHINESE));
    }

    @Test
    void thereAreAtLeastTenExercisesEachWithAUniqueNameHintsAndChecks() {
        Set<String> names = new HashSet<>();
        for (Exercise exercise : Exercises.all()) {
            assertTrue(names.add(exercise.name()), exercise.name() + " twice");
            assertTrue(exercise.name().matches("[a-z0-9-]+"), exercise.name());
            assertTrue(exercise.hints().size() >= 2, exercise.name() + ": hints");
            assertFalse(exercise.checks().isEmpty());
            assertEquals(exercise, Exercises.named(exercise.name()).orElseThrow());
        }
        assertTrue(names.size() >= 10, names.toString());
        assertTrue(Exercises.named("no-such-exercise").isEmpty());
    }

    @Test
    void aCheckSaysWhatItChecksInTheWindowsLanguage() {
        Check write = Check.CompletionOf.success(org.rdmalab.lab.Role.CLIENT, org.rdmalab.verbs.WcOpcode.RDMA_WRITE, 11);
        assertEquals("the client polls a completion IBV_WC_SUCCESS IBV_WC_RDMA_WRITE, byte_len 11", write.said().english());
        assertEquals("客户端轮询到完成 IBV_WC_SUCCESS IBV_WC_RDMA_WRITE, byte_len 11",
                write.said().in(Locale.SIMPLIFIED_CHINESE));
        Check counter = Check.Holds.word(org.rdmalab.lab.Role.SERVER, 16, 3);
        assertEquals("the server's buffer holds the 64-bit word 3 at offset 16", counter.said().english());
        assertEquals("after check 1: the client sends a request packet again (a retransmission)",
                new Check.After(0, Check.PacketSeen.of(org.rdmalab.lab.Role.CLIENT, Check.Wire.REQUEST_RETRANSMITTED))
                        .said().english());
    }

    private static long count(String text, String what) {
        return Pattern.compile(Pattern.quote(what)).matcher(text).results().count();
    }

    private static Set<String> names(String text) {
        Set<String> names = new TreeSet<>();
        Matcher matcher = VERBS_NAME.matcher(text);
        while (matcher.find()) {
            names.add(matcher.group());
        }
        return names;
    }
}
