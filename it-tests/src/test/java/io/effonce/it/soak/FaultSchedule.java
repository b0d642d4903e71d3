package io.effonce.it.soak;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * The faults of a soak, drawn from a seed: every kind once in a shuffled order, then kinds drawn at
 * random. The same seed gives the same schedule, so a failing soak replays from the seed it
 * printed.
 */
public final class FaultSchedule {

    private FaultSchedule() {}

    /**
     * Every fault once, in an order drawn from {@code seed}: each kind that no other fault injects,
     * and every overlap (which injects its two parts). The short soak of every {@code mvn verify}.
     * A {@link SoakFault#REDEPLOY} is injected by the bad release's rollback, which deploys the job
     * again, unchanged, from the savepoint it stopped with mid-stream.
     */
    public static List<SoakFault> everyFaultOnce(long seed) {
        Set<SoakFault> injectedByOthers = EnumSet.of(SoakFault.REDEPLOY);
        for (SoakFault kind : SoakFault.values()) {
            injectedByOthers.addAll(kind.parts());
        }
        return draw(seed, SoakFault.values().length).stream()
                .filter(kind -> !injectedByOthers.contains(kind))
                .toList();
    }

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
