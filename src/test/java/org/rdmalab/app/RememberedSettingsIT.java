package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.rdmalab.testing.Jvms;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * The window's real remembering, through the jar and {@code java.util.prefs} (the preferences
 * kept in a folder of the test's own): a first run started dark, in projector mode and in
 * Chinese writes that when it closes, and a second run started with no option opens with what the
 * first left and writes it back unchanged. Headless through Monocle; each run closes itself at its
 * first frame ({@code -Drdmalab.firstFrame=exit}), which goes through the window's own close, and
 * says once, in its output, how long that frame took.
 */
class RememberedSettingsIT {

    @TempDir
    Path home;

    /** Runs {@code gui ARGS} once, headless, with its preferences under {@link #home}. */
    private String runGui(String... args) throws Exception {
        Path jar = Path.of(System.getProperty("rdmalab.jar", "target/rdma-lab.jar"));
        List<String> command = Jvms.java();
        command.addAll(List.of("-Dglass.platform=Monocle", "-Dmonocle.platform=Headless",
                "-Dheadless.geometry=2000x1300-32", "-Djava.util.prefs.userRoot=" + home,
                "-Drdmalab.firstFrame=exit", "-jar", jar.toString(), "gui"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        assertTrue(process.waitFor(180, TimeUnit.SECONDS), "the window closed itself at its first frame");
        String output = new String(process.getInputStream().readAllBytes());
        assertEquals(0, process.exitValue(), output);
        // The window says once when its first frame was drawn, counted from the process's start and from JavaFX's.
        java.util.regex.Matcher line = java.util.regex.Pattern.compile(
                "first frame: (\\d+) ms after the process started \\((\\d+) ms after JavaFX called start\\)")
                .matcher(output);
        assertTrue(line.find(), output);
        long sinceProcess = Long.parseLong(line.group(1));
        long sinceStart = Long.parseLong(line.group(2));
        assertTrue(sinceStart > 0 && sinceProcess > sinceStart, output);
        assertEquals(1, output.lines().filter(text -> text.startsWith("first frame:")).count(), "said once");
        return output;
    }

    /** What the lab's preferences node holds now, read from the file java.util.prefs wrote. */
    private Map<String, String> remembered() throws Exception {
        Path file;
        try (var files = Files.walk(home)) {
            file = files.filter(path -> path.endsWith(Path.of("rdmalab", "lab", "prefs.xml"))).findFirst()
                    .orElseThrow(() -> new AssertionError("no preferences were written under " + home));
        }
        var factory = DocumentBuilderFactory.newInstance();
        factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
        NodeList entries = factory.newDocumentBuilder().parse(file.toFile()).getElementsByTagName("entry");
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < entries.getLength(); i++) {
            Element entry = (Element) entries.item(i);
            values.put(entry.getAttribute("key"), entry.getAttribute("value"));
        }
        return values;
    }

    @Test
    void whatOneRunChoseIsWhereTheNextRunOpens() throws Exception {
        String first = runGui("--theme", "dark", "--scale", "1.5", "--lang", "zh_CN");
        Map<String, String> chosen = remembered();
        assertEquals("dark", chosen.get("theme"), first);
        assertEquals("1.5", chosen.get("scale"));
        assertEquals("zh_CN", chosen.get("language"));
        assertEquals("soft0", chosen.get("setup.device"), "the setup bar's device is remembered too");

        String second = runGui();
        Map<String, String> after = remembered();
        // Had the second run not read them, it would have opened light, at a desk and in the
        // desktop's language, and written that back on closing.
        assertEquals("dark", after.get("theme"), second);
        assertEquals("1.5", after.get("scale"));
        assertEquals("zh_CN", after.get("language"));
        assertEquals(chosen, after, "the second run wrote back what it opened with");
    }
}
