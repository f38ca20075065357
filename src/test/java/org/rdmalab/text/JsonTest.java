package org.rdmalab.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The JSON that {@code devices}, {@code doctor}, {@code bench --json} and the Bench view's Save write. */
class JsonTest {

    @Test
    void nestedMapsAndListsKeepTheirOrderWithTwoSpaceIndents() {
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("test", "RDMA_Write_Latency");
        root.put("Mtu", 1024);
        root.put("ratio", 1.25);
        root.put("stopped", true);
        root.put("none", null);
        root.put("results", List.of(Map.of("MsgSize", 2), Map.of("MsgSize", 4)));
        root.put("empty", new LinkedHashMap<>());
        root.put("nothing", new ArrayList<>());
        assertEquals("""
                {
                  "test": "RDMA_Write_Latency",
                  "Mtu": 1024,
                  "ratio": 1.25,
                  "stopped": true,
                  "none": null,
                  "results": [
                    {
                      "MsgSize": 2
                    },
                    {
                      "MsgSize": 4
                    }
                  ],
                  "empty": {},
                  "nothing": []
                }""", Json.write(root));
    }

    @Test
    void stringsAreEscapedAndOtherValuesAreWrittenAsTheirText() {
        assertEquals("\"a \\\"b\\\" c\\\\d\"", Json.write("a \"b\" c\\d"));
        assertEquals("\"1\\n2\\r3\\t4\\u0001\\u001f \"", Json.write("1\n2\r3\t4\u0001\u001f\u0020"));
        assertEquals("\"RTS\"", Json.write(new Object() {
            @Override
            public String toString() {
                return "RTS";
            }
        }));
        assertEquals("[\n  \"x\"\n]", Json.write(List.of("x")));
    }
}
