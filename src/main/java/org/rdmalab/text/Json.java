package org.rdmalab.text;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes maps, lists, strings, numbers and booleans as JSON with two-space indents (what the
 * commands' {@code --json} and the window's Bench Save need, nothing more): the one JSON writer of
 * {@code devices}, {@code doctor}, {@code bench} and the Bench view. A map keeps its entries' order;
 * any other value is written as the string of its {@code toString()}.
 */
public final class Json {

    private Json() {
    }

    /** {@code value} as JSON text, with no newline after it. */
    public static String write(Object value) {
        StringBuilder out = new StringBuilder();
        write(value, out, 0);
        return out.toString();
    }

    private static void write(Object value, StringBuilder out, int indent) {
        if (value == null) {
            out.append("null");
        } else if (value instanceof String text) {
            quote(text, out);
        } else if (value instanceof Number || value instanceof Boolean) {
            out.append(value);
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
            while (entries.hasNext()) {
                Map.Entry<?, ?> entry = entries.next();
                newline(out, indent + 1);
                quote(String.valueOf(entry.getKey()), out);
                out.append(": ");
                write(entry.getValue(), out, indent + 1);
                if (entries.hasNext()) {
                    out.append(',');
                }
            }
            if (!map.isEmpty()) {
                newline(out, indent);
            }
            out.append('}');
        } else if (value instanceof List<?> list) {
            out.append('[');
            for (int i = 0; i < list.size(); i++) {
                newline(out, indent + 1);
                write(list.get(i), out, indent + 1);
                if (i < list.size() - 1) {
                    out.append(',');
                }
            }
            if (!list.isEmpty()) {
                newline(out, indent);
            }
            out.append(']');
        } else {
            quote(value.toString(), out);
        }
    }

    private static void newline(StringBuilder out, int indent) {
        out.append('\n');
        out.append("  ".repeat(indent));
    }

    private static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
