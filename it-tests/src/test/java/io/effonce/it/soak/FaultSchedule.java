package io.effonce.it.soak;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The faults of a soak, drawn from a seed: every kind once in a shuffled order, then kinds drawn at
 * random. The same seed gives the same schedule, so a failing soak replays from the seed it
 * printed.
 */
public final class FaultSchedule {

    private FaultSchedule() {}

    /** {@code count} faults; the first {@code SoakFault.values().length} hold every kind once. */
    public static List<SoakFault> draw(long seed, int count) {
        // Mixed first: java.util.Random's first draw below a power of two is nearly the same for
        // every small seed, so with 16 kinds every seed up to 65,535 drew the same last kind.
        Random random = new Random(new SplittableRandom(seed).nextLong());
        List<SoakFault> everyKind = new ArrayList<>(Arrays.asList(SoakFault.values()));
        Collections.shuffle(everyKind, random);
        List<SoakFault> schedule =
                new ArrayList<>(everyKind.subList(0, Math.min(count, everyKind.size())));
        while (schedule.size() < count) {
            schedule.add(SoakFault.values()[random.nextInt(SoakFault.values().length)]);
        }
        return List.copyOf(schedule);
    }
}
