package org.rdmalab.app;

import com.sun.javafx.font.CharToGlyphMapper;
import com.sun.javafx.font.PGFont;
import com.sun.javafx.scene.text.FontHelper;
import java.util.ArrayList;
import java.util.List;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.text.Font;
import javafx.scene.text.Text;

/**
 * Which characters a font draws as the missing-glyph box. JavaFX's own glyph mapper answers it, the
 * fallback fonts it found on the system included (glyph 0 is the box), so a test can tell a label
 * that reads from one a user sees as a row of empty squares. Called on the JavaFX thread.
 */
final class Glyphs {

    private Glyphs() {
    }

    /** The characters of {@code text} that {@code font} has no glyph for; spaces and format characters are not drawn. */
    static List<String> missing(Font font, String text) {
        CharToGlyphMapper mapper = ((PGFont) FontHelper.getNativeFont(font)).getFontResource().getGlyphMapper();
        return text.codePoints()
                .filter(c -> !Character.isWhitespace(c) && !Character.isISOControl(c)
                        && Character.getType(c) != Character.FORMAT && mapper.charToGlyph(c) == 0)
                .distinct().mapToObj(Character::toString).toList();
    }

    /** The text nodes under {@code root} a user sees: visible, with every parent visible, and not empty. */
    static List<Text> shown(Parent root) {
        List<Text> found = new ArrayList<>();
        collect(root, found);
        return found;
    }

    private static void collect(Node node, List<Text> found) {
        if (!node.isVisible()) {
            return;
        }
        if (node instanceof Text text && text.getText() != null && !text.getText().isBlank()) {
            found.add(text);
        }
        if (node instanceof Parent parent) {
            for (Node child : parent.getChildrenUnmodifiable()) {
                collect(child, found);
            }
        }
    }
}
