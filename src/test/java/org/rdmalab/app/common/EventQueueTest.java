package org.rdmalab.app.common;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Events reach the UI in batches, in order, none lost; tables stay bounded and say what they dropped. */
class EventQueueTest {

    @Test
    void aStormOfEventsFromSeveralThreadsArrivesInFewBatchesInOrderPerThread() throws Exception {
        ConcurrentLinkedQueue<Runnable> ui = new ConcurrentLinkedQueue<>();
        List<List<String>> batches = new ArrayList<>();
        EventQueue<String> queue = new EventQueue<>(ui::add, batches::add);
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            String name = "t" + t;
            threads.add(new Thread(() -> IntStream.range(0, 5000).forEach(i -> queue.offer(name + ":" + i))));
        }
        threads.forEach(Thread::start);
        for (Thread thread : threads) {
            thread.join();
        }
        int drains = 0;
        Runnable task;
        while ((task = ui.poll()) != null) {
            task.run();
            drains++;
        }
        List<String> all = batches.stream().flatMap(List::stream).toList();
        assertEquals(20_000, all.size(), "nothing lost");
        assertEquals(1, drains, "one drain was pending for the whole storm: the UI ran once");
        for (int t = 0; t < 4; t++) {
            String prefix = "t" + t + ":";
            List<Integer> order = all.stream().filter(item -> item.startsWith(prefix))
                    .map(item -> Integer.parseInt(item.substring(prefix.length()))).toList();
            assertEquals(IntStream.range(0, 5000).boxed().toList(), order, "each thread's events keep their order");
        }
        queue.offer("late");
        assertEquals(1, ui.size(), "a new event after the drain schedules one more");
    }

    @Test
    void aBoundedLogKeepsTheNewestRowsAndCountsWhatItDropped() {
        BoundedLog<Integer> log = new BoundedLog<>(100);
        log.addAll(IntStream.range(0, 60).boxed().toList());
        log.addAll(IntStream.range(60, 250).boxed().toList());
        assertEquals(100, log.rows().size());
        assertEquals(150, log.rows().get(0));
        assertEquals(249, log.rows().get(99));
        assertEquals(150, log.droppedProperty().get());
        log.clear();
        assertEquals(0, log.droppedProperty().get());
    }
}
