package org.rdmalab.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.util.List;
import javafx.css.CssParser;
import javafx.css.Stylesheet;
import org.junit.jupiter.api.Test;

/**
 * The window's style sheets parse without an error. JavaFX drops a rule it cannot parse and only
 * logs why, so a missing brace left by a merge silently took the F1 list's hint style and the
 * Lessons tab's outcome colours away until someone looked.
 */
class StylesheetsParseTest {

    private static List<String> errorsOf(Runnable parse) {
        CssParser.errorsProperty().clear();
        parse.run();
        List<String> errors = CssParser.errorsProperty().stream().map(CssParser.ParseError::toString).toList();
        CssParser.errorsProperty().clear();
        return errors;
    }

    @Test
    void everyStyleSheetOfTheWindowParsesWithoutAnError() {
        for (String sheet : List.of(MainWindow.STYLESHEET, "/styles/controls.css")) {
            URL url = StylesheetsParseTest.class.getResource(sheet);
            assertNotNull(url, sheet + " is on the class path");
            Stylesheet[] parsed = new Stylesheet[1];
            List<String> errors = errorsOf(() -> {
                try {
                    parsed[0] = new CssParser().parse(url);
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            assertEquals(List.of(), errors, sheet);
            assertTrue(parsed[0].getRules().size() > 10, sheet + " has its rules");
        }
    }

    @Test
    void aRuleWithoutItsClosingBraceIsAnError() {
        List<String> errors = errorsOf(() -> new CssParser().parse(".help-hint { -fx-font-size: 12px;\n.next { }"));
        assertFalse(errors.isEmpty(), "the parser reports the missing brace");
    }
}
