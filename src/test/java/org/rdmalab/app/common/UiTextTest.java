package org.rdmalab.app.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.rdmalab.lab.Flows;
import org.rdmalab.lab.Role;
import org.rdmalab.lab.Step;

/** The window's two languages: the same keys, the same format arguments, every step and FXML label covered. */
class UiTextTest {

    private static final Pattern SPECIFIER = Pattern.compile("%[sd]");
    /** Names and patterns with no words to translate. */
    private static final Set<String> SAME_IN_BOTH = Set.of("main.verbs", "doctor.where",
            "bench.distribution.cdf");

    @AfterEach
    void english() {
        UiText.use(UiText.ENGLISH);
    }

    private static Properties bundle(String name) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = UiText.class.getResourceAsStream("/org/rdmalab/app/" + name)) {
            properties.load(new InputStreamReader(in, StandardCharsets.UTF_8));
        }
        return properties;
    }

    private static List<String> specifiers(String pattern) {
        List<String> found = new ArrayList<>();
        Matcher matcher = SPECIFIER.matcher(pattern);
        while (matcher.find()) {
            found.add(matcher.group());
        }
        return found;
    }

    @Test
    void chineseHasEveryEnglishKeyWithTheSameFormatArguments() throws IOException {
        Properties english = bundle("messages.properties");
        Properties chinese = bundle("messages_zh_CN.properties");
        assertEquals(new TreeSet<>(english.stringPropertyNames()), new TreeSet<>(chinese.stringPropertyNames()));
        for (String key : english.stringPropertyNames()) {
            String zh = chinese.getProperty(key);
            assertEquals(specifiers(english.getProperty(key)), specifiers(zh), key);
            if (!specifiers(zh).isEmpty()) {
                Object[] arguments = specifiers(zh).stream().map(each -> each.equals("%d") ? (Object) 7 : "x").toArray();
                String.format(english.getProperty(key), arguments); // a bad pattern throws here, not in the window
                String.format(zh, arguments);
            }
            // Chinese text, unless it is a name that reads the same in both or only Chinese punctuation.
            assertTrue(zh.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN)
                    || SAME_IN_BOTH.contains(key) || !zh.equals(english.getProperty(key)),
                    () -> key + " is not translated: " + zh);
        }
    }

    @Test
    void everyStepOfEveryFlowHasAChineseTitleAndEnglishIsTheLabsOwn() {
        List<Step> steps = new ArrayList<>();
        for (Role role : Role.values()) {
            for (Flows.SeedFlow flow : Flows.SeedFlow.values()) {
                steps.addAll(Flows.seed(role, flow, Flows.Settings.seed("soft0"), true));
                steps.addAll(Flows.seed(role, flow, Flows.Settings.seed("soft0"), false));
            }
            steps.addAll(Flows.pingpong(role, Flows.Settings.seed("soft0"), 10, OptionalInt.of(18516)));
        }
        for (Step step : steps) {
            UiText.use(UiText.ENGLISH);
            assertEquals(step.title(), UiText.stepTitle(step), "the window and demo/loopback say the same in English");
            UiText.use(UiText.CHINESE);
            String zh = UiText.stepTitle(step);
            assertTrue(zh.codePoints().anyMatch(c -> Character.UnicodeScript.of(c) == Character.UnicodeScript.HAN),
                    () -> step.id() + " has no Chinese title: " + zh);
        }
    }

    @Test
    void everyFxmlLabelKeyIsInTheBundle() throws IOException {
        Properties english = bundle("messages.properties");
        Pattern key = Pattern.compile("=\"%([A-Za-z0-9.]+)\"");
        Set<String> missing = new TreeSet<>();
        int keys = 0;
        try (Stream<Path> files = Files.walk(Path.of("fxml"))) {
            for (Path file : files.filter(path -> path.toString().endsWith(".fxml")).toList()) {
                Matcher matcher = key.matcher(Files.readString(file));
                while (matcher.find()) {
                    keys++;
                    if (!english.containsKey(matcher.group(1))) {
                        missing.add(file.getFileName() + ": " + matcher.group(1));
                    }
                }
            }
        }
        assertTrue(keys > 80, "the views name their labels by key: " + keys);
        assertEquals(Set.of(), missing);
    }

    @Test
    void langNamesEnglishOrSimplifiedChineseAndRefusesOthersSayingWhich() {
        assertEquals(UiText.CHINESE, UiText.parse("zh_CN"));
        assertEquals(UiText.CHINESE, UiText.parse("zh-CN"));
        assertEquals(UiText.ENGLISH, UiText.parse("en"));
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> UiText.parse("fr"));
        assertEquals("unknown language 'fr' for --lang; use en or zh_CN", refused.getMessage());
    }

    @Test
    void englishIsTheBaseBundleEvenOnAChineseDesktop() {
        Locale before = Locale.getDefault();
        try {
            Locale.setDefault(Locale.SIMPLIFIED_CHINESE);
            assertEquals(UiText.CHINESE, UiText.systemDefault());
            UiText.use(UiText.ENGLISH);
            assertEquals("Next step", UiText.text("peer.nextStep"));
            UiText.use(UiText.CHINESE);
            assertEquals("下一步", UiText.text("peer.nextStep"));
            assertEquals("3 个完成", Columns.count(3, 0, "completions"));
            // What waits for a sentence (gui --scenario doctor) finds it in either language.
            assertTrue("9 项通过，2 项失败".matches(UiText.pattern("doctor.summary")));
            UiText.use(UiText.ENGLISH);
            assertTrue("9 passed, 2 failed, 1 not applicable".matches(UiText.pattern("doctor.summary") + ".*"));
            assertTrue(!"running the checks...".matches(UiText.pattern("doctor.summary") + ".*"));
        } finally {
            Locale.setDefault(before);
        }
    }
}
