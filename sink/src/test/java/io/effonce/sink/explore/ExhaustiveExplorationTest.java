package io.effonce.sink.explore;

import static org.assertj.core.api.Assertions.assertThat;

import io.effonce.sink.testutils.InMemoryStoreUnderTest;
import io.effonce.testing.SoakRun;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.core.config.Configurator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every history of the small {@link World} up to a bound, walked on the in-memory store and held to
 * the explorer's model: each ends with both tables equal to the job's lineage, no committed value
 * ever stepped back (except across an operator's rollback), and no live attempt failed. With each
 * rule of the sink switched off, the walk finds a history it makes wrong.
 *
 * <p>The bound is the number of steps after the seed: 3 with one subtask and 2 with two in CI
 * (14,702 histories); the soak run ({@code -Deffonce.soak=true}) walks 4 and 3 (233,364 histories,
 * 13.5 minutes here with 128 key groups). Each world's count of histories is asserted, so an
 * alphabet or an applicability rule that silently shrinks the walk fails the test;
 * docs/flushable-sink.md lists the counts of both bounds.
 */
class ExhaustiveExplorationTest {

    /**
     * The bound of CI's walks: 3 steps after the seed with one subtask, 2 with two (whose walk at 3
     * would take CI another minute); the soak run walks one step further in both.
     */
    private static int bound(World world) {
        return (world.parallelism() == 1 ? 3 : 2) + (SoakRun.asked() ? 1 : 0);
    }

    /**
     * The sink logs each start and flush of every attempt: tens of thousands of histories would
     * write some 200,000 lines. The walk reports its own findings.
     */
    @BeforeAll
    static void quietSink() {
        Configurator.setLevel("io.effonce.sink", Level.ERROR);
    }

    @AfterAll
    static void sinkLogsAgain() {
        Configurator.setLevel("io.effonce.sink", Level.INFO);
    }

    /**
     * The histories of each world by bound (steps that do not apply are pruned, not counted): CI
     * walks bound 3 with one subtask and 2 with two, the soak run 4 and 3.
     */
    private static final Map<Integer, Map<String, Long>> HISTORIES =
            Map.of(
                    2,
                    Map.of(
                            "parallelism 2, retention PT1H", 636L,
                            "parallelism 2, retention 0", 488L),
                    3,
                    Map.of(
                            "parallelism 1, retention PT1H", 8_384L,
                            "parallelism 1, retention 0", 5_194L,
                            "parallelism 2, retention PT1H", 13_097L,
                            "parallelism 2, retention 0", 8_622L),
                    4,
                    Map.of(
                            "parallelism 1, retention PT1H", 138_966L,
                            "parallelism 1, retention 0", 72_679L));

    @ParameterizedTest(name = "{0}")
    @MethodSource("worlds")
    void everyHistoryUpToTheBoundEndsAsTheModelSays(World world) throws Exception {
        int bound = bound(world);
        HistoryEnumerator.Walk walk =
                new HistoryEnumerator(
                                world,
                                bound,
                                store ->
                                        new TakeoverExplorer<>(
                                                store, false, false, world.retention()))
                        .walk();
        System.out.printf(
                "%s, bound %d: %d histories walked, %d pruned%n",
                world.name(), bound, walk.histories(), walk.pruned());
        assertThat(walk.counterexample()).isEmpty();
        assertThat(walk.histories()).isEqualTo(HISTORIES.get(bound).get(world.name()));
    }

    /**
     * Each rule switched off, in a one-subtask world: the walk stops at the first wrong history. CI
     * walks the rules whose counterexample lies within bound 3; the soak run adds the promotion of
     * what was staged, at bound 5 ({@link RuleOff#PROMOTE_STAGED}). Each counterexample played
     * again with every rule on must end right: else it is no counterexample of the rule.
     */
    @ParameterizedTest
    @MethodSource("rulesOff")
    void eachRuleSwitchedOffIsFoundWithinItsBound(RuleOff rule) throws Exception {
        HistoryEnumerator.Walk walk =
                new HistoryEnumerator(rule.world(), rule.bound(), rule::explorer).walk();
        assertThat(walk.counterexample())
                .as(
                        "a history that %s switched off makes wrong, within bound %d",
                        rule, rule.bound())
                .isPresent();
        System.out.println(
                rule
                        + " off: "
                        + walk.counterexample().orElseThrow().lines().findFirst().orElseThrow());
        List<Step> played = new ArrayList<>(rule.world().seed());
        played.addAll(walk.wrongHistory().orElseThrow());
        TakeoverExplorer<String, Long> everyRuleOn =
                rule.explorerWithEveryRuleOn(new InMemoryStoreUnderTest());
        assertThat(everyRuleOn.play(rule.world().parallelism(), played))
                .as(
                        "the same history with every rule on (else the rule's counterexample is"
                                + " not its own): %s",
                        played)
                .isNull();
    }

    static Stream<RuleOff> rulesOff() {
        return Stream.of(RuleOff.values()).filter(rule -> SoakRun.asked() || rule.bound() <= 3);
    }

    static Stream<World> worlds() {
        return Stream.of(1, 2)
                .flatMap(
                        parallelism ->
                                Stream.of(TakeoverExplorer.RETENTION_AS_SHIPPED, Duration.ZERO)
                                        .map(retention -> World.of(parallelism, retention)));
    }
}
