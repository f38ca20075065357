package org.rdmalab.app.packets;

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
import org.junit.jupiter.api.Test;

/**
 * Every meaning the dissector can give has its words in both of the window's languages, each
 * pattern taking the arguments the dissector gives it, and no word is left that it never gives.
 * The keys are read from the dissector's source ({@code Meaning.of("key", args...)}), so a new
 * meaning without its words fails here.
 */
class DissectionWordsTest {

    /** The dissection's sources: the entry points and the parsers of each part of a packet. */
    private static final List<Path> DISSECTOR = java.util.stream.Stream.of("Dissector", "DissectionParse",
            "FrameHeaders", "TransportHeaders").map(name -> Path.of("src/main/java/org/rdmalab/wire/" + name + ".java"))
            .toList();
    private static final Pattern MEANING = Pattern.compile("Meaning\\.of\\(\"([a-zA-Z0-9.]+)\"");
    private static final Pattern CHOSEN = Pattern.compile("\\? \"([a-zA-Z0-9.]+)\"|: \"([a-zA-Z0-9.]+)\"");

    /** Each key the dissector names, in a Meaning.of or as one of a key's choices ({@code x ? "a" : "b"}). */
    private static Set<String> keys() throws IOException {
        StringBuilder sources = new StringBuilder();
        for (Path file : DISSECTOR) {
            sources.append(Files.readString(file)).append('\n');
        }
        String source = sources.toString();
        Set<String> keys = new TreeSet<>();
        Matcher matcher = MEANING.matcher(source);
        while (matcher.find()) {
            keys.add(matcher.group(1));
        }
        Matcher choices = CHOSEN.matcher(source);
        while (choices.find()) {
            String key = choices.group(1) != null ? choices.group(1) : choices.group(2);
            if (key.contains(".") && !key.startsWith("0x")) {
                keys.add(key);
            }
        }
        for (String caseKey : new String[] {"aeth.nak.psnSequenceError", "aeth.nak.invalidRequest",
            "aeth.nak.remoteAccessError", "aeth.nak.remoteOperationalError", "aeth.nak.reserved"}) {
            assertTrue(source.contains("\"" + caseKey + "\""), caseKey);
            keys.add(caseKey);
        }
        // The syndrome type's words are one key per type: "aeth.type." + (syndrome >>> 5 & 3).
        assertTrue(source.contains("Meaning.of(\"aeth.type.\" + (syndrome >>> 5 & 3))"));
        keys.remove("aeth.type.");
        for (int type = 0; type < 4; type++) {
            keys.add("aeth.type." + type);
        }
        return keys;
    }

    private static int specifiers(String pattern) {
        Matcher matcher = Pattern.compile("%s").matcher(pattern);
        int count = 0;
        while (matcher.find()) {
            count++;
        }
        return count;
    }

    @Test
    void everyMeaningHasItsWordsInEnglishAndChineseWithItsArguments() throws IOException {
        Set<String> keys = keys();
        assertTrue(keys.size() > 100, "found " + keys.size() + " meanings in " + DISSECTOR);
        ResourceBundle english = ResourceBundle.getBundle("org.rdmalab.app.messages", Locale.ROOT,
                ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
        for (Locale locale : new Locale[] {Locale.ROOT, Locale.SIMPLIFIED_CHINESE}) {
            ResourceBundle bundle = ResourceBundle.getBundle("org.rdmalab.app.messages", locale,
                    ResourceBundle.Control.getNoFallbackControl(ResourceBundle.Control.FORMAT_PROPERTIES));
            Set<String> unused = new TreeSet<>();
            for (String key : bundle.keySet()) {
                if (key.startsWith("dissect.")) {
                    unused.add(key.substring("dissect.".length()));
                }
            }
            for (String key : keys) {
                assertTrue(bundle.containsKey("dissect." + key), "dissect." + key + " in " + locale);
                String pattern = bundle.getString("dissect." + key);
                assertEquals(specifiers(english.getString("dissect." + key)), specifiers(pattern),
                        "dissect." + key + " takes as many arguments in " + locale + " as in English: " + pattern);
                assertTrue(pattern.matches("[^%]*(%s[^%]*)*"), "only %s in dissect." + key + ": " + pattern);
            }
            unused.removeAll(keys);
            assertEquals(Set.of(), unused, "words no meaning uses (" + locale + ")");
        }
    }
}
