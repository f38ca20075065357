package org.rdmalab.lab.scenario;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What each scenario is and teaches lives in one resource, and docs/loopback.md's table says the same. */
class ScenarioTextsTest {

    private static final Pattern ROW = Pattern.compile("^\\| `([a-z-]+)` \\| (.+) \\| (.+) \\|$");

    @Test
    void docsTableIsTheResourceWordForWord() throws IOException {
        List<String> named = new ArrayList<>();
        String section = Files.readString(Path.of("docs/loopback.md"));
        section = section.substring(section.indexOf("## Scenarios and what each teaches"));
        section = section.substring(0, section.indexOf("\n## ", 5));
        for (String line : section.lines().toList()) {
            Matcher row = ROW.matcher(line);
            if (row.matches()) {
                named.add(row.group(1));
                assertEquals(ScenarioTexts.english().happens(row.group(1)), row.group(2), row.group(1));
                assertEquals(ScenarioTexts.english().teaches(row.group(1)), row.group(3), row.group(1));
            }
        }
        assertEquals(Scenarios.names(), named, "the table lists every scenario in the command's order");
    }

    @Test
    void everyScenarioHasItsTextsInBothLanguagesAndTheLineIsTheDescription() throws IOException {
        Properties english = load("scenarios.properties");
        Properties chinese = load("scenarios_zh_CN.properties");
        assertEquals(english.keySet(), chinese.keySet(), "the Chinese bundle has the same keys");
        assertEquals(Scenarios.names().size() * 3, english.size(), "line, happens and teaches per scenario");
        ScenarioTexts zh = ScenarioTexts.of(Locale.SIMPLIFIED_CHINESE);
        for (Scenario scenario : Scenarios.all()) {
            assertEquals(ScenarioTexts.english().line(scenario.name()), scenario.description());
            assertNotEquals(ScenarioTexts.english().teaches(scenario.name()), zh.teaches(scenario.name()));
            assertFalse(zh.happens(scenario.name()).isBlank());
        }
        assertEquals(ScenarioTexts.english().line("rnr"), ScenarioTexts.of(Locale.GERMAN).line("rnr"));
        assertThrows(IllegalArgumentException.class, () -> ScenarioTexts.english().teaches("nope"));
    }

    private static Properties load(String name) throws IOException {
        Properties properties = new Properties();
        try (InputStream in = ScenarioTexts.class.getResourceAsStream(name)) {
            properties.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
        }
        return properties;
    }
}
